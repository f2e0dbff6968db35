import type { Bus, OutboxRelay } from '@pasar/bus';
import { API_PREFIX, createLogger, startPeriodic, startService, type PeriodicWorker, type ServiceContext } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { AuthDeps } from './auth/auth';
import { authenticateSession } from './auth/middleware';
import { warmPasswordDecoy } from './auth/passwords';
import { SessionRevocations } from './auth/revocations';
import { SessionCache } from './auth/session-cache';
import { deleteExpiredSessions } from './auth/sessions';
import { SignInLimiter } from './auth/sign-in-limiter';
import type { GatewayConfig } from './config';
import { MIGRATIONS_DIR, createGatewayPrisma, type GatewayPrisma } from './db';
import { createApiReference } from './docs/reference';
import { docsShortcut } from './docs/routes';
import { abuseLimitTable, abuseLimits } from './http/abuse-limits';
import { LimiterStore } from './http/limiter-store';
import { apiAnswerHeaders, corsFor, securityHeaders } from './http/security';
import { serveIdentityRpc } from './identity-rpc/responders';
import { LiveFeed } from './live/feed';
import type { LiveDeps } from './live/live';
import { livePathOf } from './live/rules';
import { rawLiveStreams } from './live/routes';
import { StreamSlots } from './live/stream-slots';
import { LiveStreamRegistry } from './live/streams';
import { routeGate } from './proxy/gate';
import { createUpstreamProxy } from './proxy/proxy';
import { rawProxyPath } from './proxy/raw-path';
import { ROUTE_TABLE } from './proxy/route-table';
import { compileRouteTable } from './proxy/rules';
import { seedAdmin } from './auth/admin-seed';
import { consoleStatic } from './console/static';
import { gatewayRoutes } from './routes';

export const SERVICE_NAME = 'gateway';
const SESSION_SWEEP_MS = 60 * 60 * 1000;

/** What tests and the launcher may swap. */
export interface GatewayOverrides {
  log?: Logger;
  /** A client for the same DATABASE_URL (e.g. to share it with the test); closed with the gateway. */
  prisma?: GatewayPrisma;
  clock?: () => Date;
  /**
   * false: proxied routes go through express (session middleware, route gate, proxy middleware)
   * instead of the raw path. Only the differential test sets it, to have the reference the raw
   * path must answer exactly like (proxy/raw-differential.test.ts).
   */
  rawPath?: boolean;
}

export interface GatewayHandle {
  url: string;
  port: number;
  /** The internal listener of /readyz and /metrics, when METRICS_PORT is set. */
  opsUrl?: string;
  config: GatewayConfig;
  prisma: GatewayPrisma;
  bus: Bus;
  relay: OutboxRelay;
  log: Logger;
  sessionCache: SessionCache;
  /** The open live streams of this instance. */
  liveStreams: LiveStreamRegistry;
  /** Stops accepting, drains requests, then stops rpc, relay, NATS and the database client. */
  close(): Promise<void>;
}

/**
 * Starts the gateway in this process: migrates `identity`, connects NATS, serves the identity
 * rpcs, seeds the admin, and opens HTTP (auth and account routes, docs, and the proxy to the
 * domain services behind the route table).
 */
export async function startGateway(config: GatewayConfig, overrides: GatewayOverrides = {}): Promise<GatewayHandle> {
  const log = overrides.log ?? createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const prisma = overrides.prisma ?? createGatewayPrisma(config.DATABASE_URL);
  const clock = overrides.clock ?? (() => new Date());
  const production = config.NODE_ENV === 'production';
  const sessionCache = new SessionCache(config.SESSION_CACHE_TTL_MS, config.SESSION_CACHE_MAX);
  const limitCounts = LimiterStore.create(config, log);
  const limiter = SignInLimiter.create(config, log, limitCounts);
  const proxy = createUpstreamProxy(config, log);
  const routes = compileRouteTable(ROUTE_TABLE);
  const reference = await createApiReference({
    specUrl: `${API_PREFIX}/openapi.json`,
    assetsUrl: `${API_PREFIX}/docs/assets`,
    title: 'Pasar API reference',
  });

  const streamSlots = new StreamSlots({ maxPerUser: config.LIVE_MAX_STREAMS_PER_USER, leaseMs: config.LIVE_STREAM_LEASE_MS, store: limitCounts, log });
  const liveStreams = new LiveStreamRegistry(streamSlots);
  let deps: (AuthDeps & { production: boolean }) | undefined;
  const depsOf = (ctx: ServiceContext<GatewayConfig, GatewayPrisma>) => {
    if (deps) return deps;
    const revocations = new SessionRevocations(ctx.bus, sessionCache, log);
    // a revoked session (sign-out, password change) closes the live streams opened with it
    revocations.onRevoked((revocation) => liveStreams.revoke(revocation));
    deps = { prisma: ctx.prisma, config, clock, production, cache: sessionCache, limiter, revocations };
    return deps;
  };
  let live: LiveDeps | undefined;
  const liveOf = (ctx: ServiceContext<GatewayConfig, GatewayPrisma>): LiveDeps =>
    (live ??= {
      feed: new LiveFeed(ctx.bus, log),
      registry: liveStreams,
      bus: ctx.bus,
      log,
      identitySecret: config.IDENTITY_SECRET,
      upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
      maxReplay: config.LIVE_REPLAY_MAX_MESSAGES,
      limits: { heartbeatMs: config.LIVE_HEARTBEAT_MS, idleMs: config.LIVE_IDLE_TIMEOUT_MS, maxBufferBytes: config.LIVE_MAX_BUFFER_BYTES },
      instanceOf: (upstream) => proxy.instanceOf(upstream),
    });

  const started = startService<GatewayConfig, GatewayPrisma>({
    name: SERVICE_NAME,
    config,
    prisma,
    migrationsDir: MIGRATIONS_DIR,
    log,
    host: config.HOST,
    internalOps: { port: config.METRICS_PORT, host: config.METRICS_HOST },
    rpc: (ctx) => {
      const d = depsOf(ctx);
      return [d.revocations.listen(), ...serveIdentityRpc(ctx.bus, d)];
    },
    workers: (ctx) => [
      sessionSweep(ctx.prisma, clock, log),
      startPeriodic({ name: 'live-stream-leases', intervalMs: config.LIVE_HEARTBEAT_MS, log, runAtStart: false, round: () => streamSlots.renew() }),
      {
        name: 'live streams',
        stop: async () => {
          liveStreams.closeAll('shutdown');
          liveOf(ctx).feed.stop();
        },
      },
      { name: 'rate limits', stop: () => limitCounts.close() },
      { name: 'upstream agent', stop: async () => proxy.close() },
    ],
    beforeListen: async (ctx) => {
      await warmPasswordDecoy();
      await liveOf(ctx).feed.start();
      if (!(await limitCounts.ready())) log.warn('Redis (REDIS_URL) is not answering; rate limits and open live streams are counted per instance until it is');
      if (!config.ADMIN_EMAIL || !config.ADMIN_PASSWORD) return;
      const result = await seedAdmin(depsOf(ctx), { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD, fullName: config.ADMIN_FULL_NAME });
      log.info({ email: config.ADMIN_EMAIL, result }, 'administrator seeded');
    },
    http: (ctx) => ({
      // live streams and proxied requests skip express (same headers, gate and answers); express
      // serves the rest (and, with overrides.rawPath false, the proxied requests too)
      rawRequests: (kit) => {
        const live = rawLiveStreams({ live: liveOf(ctx), session: depsOf(ctx), corsOrigins: config.CORS_ORIGINS })(kit);
        if (overrides.rawPath === false) return live;
        const proxied = rawProxyPath({
          compiled: routes,
          limited: abuseLimitTable(config),
          servedHere: (path) => livePathOf(path) !== undefined,
          corsOrigins: config.CORS_ORIGINS,
          session: depsOf(ctx),
          proxy,
          log,
        })(kit);
        return (req, res) => live(req, res) || proxied(req, res);
      },
      trustProxy: config.TRUST_PROXY,
      appMiddleware: [securityHeaders(), corsFor(config.CORS_ORIGINS), docsShortcut(), consoleStatic(config.CONSOLE_DIR)],
      // the malformed-URL 400 answers before appMiddleware: it gets the same headers from this
      answerHeaders: apiAnswerHeaders(config.CORS_ORIGINS),
      authenticate: authenticateSession(depsOf(ctx)),
      beforeBody: (router) => {
        router.use(abuseLimits(config, limitCounts, log));
        router.use(routeGate(routes));
        router.use(proxy.middleware);
      },
    }),
    routes: (router, ctx) => gatewayRoutes(router, depsOf(ctx), reference),
  });
  const running = await started.catch(async (err: unknown) => {
    await limitCounts.close();
    proxy.close();
    await prisma.$disconnect();
    throw err;
  });
  log.info({ apiReference: reference.kind }, 'gateway ready');

  return {
    url: running.url,
    port: running.http.port,
    opsUrl: running.ops?.url,
    config,
    prisma,
    bus: running.bus,
    relay: running.relay,
    log,
    sessionCache,
    liveStreams,
    close: () => running.close(),
  };
}

/** Deletes expired sessions now and then (every instance may; the delete is idempotent). */
function sessionSweep(prisma: GatewayPrisma, clock: () => Date, log: Logger): PeriodicWorker {
  return startPeriodic({
    name: 'session-sweep',
    intervalMs: SESSION_SWEEP_MS,
    log,
    runAtStart: false,
    async round() {
      const count = await deleteExpiredSessions(prisma, clock());
      if (count) log.info({ count }, 'expired sessions deleted');
    },
  });
}
