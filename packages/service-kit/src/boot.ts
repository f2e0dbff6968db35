import type { Subscription } from '@nats-io/transport-node';
import { Bus, OutboxRelay, ensureStreams, migrateServiceSchema, pruneBusTables, type RawSql, type RunningConsumer } from '@pasar/bus';
import { streamsOwnedBy, type BusUser } from '@pasar/contracts';
import { schemaFromUrl } from '@pasar/db';
import type { Router } from 'express';
import { Gauge } from 'prom-client';
import type { Logger } from 'pino';
import { busAuthOf, type BaseConfig } from './config';
import { deadLetterRoutes } from './dead-letter-routes';
import { withDependency } from './dependencies';
import { createLogger } from './logger';
import { leanRouter, type LeanRoute, type LeanRouter } from './lean';
import { registerWorkerMetrics, startPeriodic, type Worker } from './periodic';
import { createService, type RunningServer, type Service, type ServiceOptions } from './service';

/** Migrations of an empty schema on a loaded machine: generous, yet a hung database still stops the start. */
const MIGRATION_DEADLINE_MS = 10 * 60_000;

/** What a Prisma client offers that the kit needs (structural: every service's client fits). */
export interface PrismaLike {
  $queryRawUnsafe(query: string): Promise<unknown>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $disconnect(): Promise<void>;
}

/** What feature code receives: its explicit dependencies. */
export interface ServiceContext<C extends BaseConfig, P extends PrismaLike> {
  name: string;
  config: C;
  prisma: P;
  bus: Bus;
  log: Logger;
  /** The service's outbox relay: `publishCommitted` sends a hot path's committed events at once. */
  relay: OutboxRelay;
}

export interface StartServiceOptions<C extends BaseConfig, P extends PrismaLike> {
  name: string;
  config: C;
  /** Created by the service from its own generated client: `createPrisma(PrismaClient, config.DATABASE_URL)`. */
  prisma: P;
  /** The service's `prisma/migrations` folder. */
  migrationsDir: string;
  log?: Logger;
  routes?: (router: Router, ctx: ServiceContext<C, P>) => void;
  /** Hot endpoints on the lean path (see ServiceOptions.leanRoutes); paths relative to /api/v1. */
  leanRoutes?: (router: LeanRouter, ctx: ServiceContext<C, P>) => void;
  publicPaths?: string[];
  formPaths?: string[];
  /** Durable consumers to run (each returns its handle). */
  consumers?: (ctx: ServiceContext<C, P>) => RunningConsumer[];
  /** Rpc responders to serve. */
  rpc?: (ctx: ServiceContext<C, P>) => Subscription[];
  /** Background workers (sweeps, retries): `startPeriodic` loops, reported on /metrics. */
  workers?: (ctx: ServiceContext<C, P>) => Worker[];
  /** Extra HTTP wiring (the gateway's session check, CORS, proxy); see ServiceOptions. */
  http?: (ctx: ServiceContext<C, P>) => Pick<ServiceOptions, 'authenticate' | 'appMiddleware' | 'answerHeaders' | 'beforeBody' | 'bodyLimit' | 'routeBodyLimits' | 'trustProxy' | 'rawRequests'>;
  /** Runs after migrations, before the HTTP server opens (e.g. seeding). */
  beforeListen?: (ctx: ServiceContext<C, P>) => Promise<void>;
  host?: string;
  /**
   * Keeps /readyz and /metrics off the public listener (the gateway): they are served on a
   * separate listener at `port` (0 = any free port) on `host`, or nowhere when `port` is undefined.
   */
  internalOps?: { port?: number; host: string };
}

export interface RunningService<C extends BaseConfig, P extends PrismaLike> extends ServiceContext<C, P> {
  http: RunningServer;
  /** The internal listener of /healthz, /readyz and /metrics (with `internalOps.port`). */
  ops?: RunningServer;
  service: Service;
  consumers: RunningConsumer[];
  url: string;
  /** Closes in order: HTTP (drain), workers, consumers, rpc, relay, NATS, database. */
  close(): Promise<void>;
}

/**
 * Boots a service the same way everywhere (DESIGN §2 main.ts): migrate, connect NATS, ensure
 * streams, start the outbox relay, consumers, rpc responders and workers, then open HTTP.
 */
export async function startService<C extends BaseConfig, P extends PrismaLike>(
  options: StartServiceOptions<C, P>,
): Promise<RunningService<C, P>> {
  const { name, config, prisma } = options;
  const log = options.log ?? createLogger(name, config.LOG_LEVEL);
  if (config.MIGRATE_ON_START) {
    // the deadline is for reaching PostgreSQL; the migrations themselves take as long as they take
    // (an empty schema on a busy machine needs more than the deadline)
    await withDependency('DATABASE_URL', 'connecting to PostgreSQL', () => (prisma as PrismaLike & RawSql).$queryRawUnsafe('SELECT 1'));
    const { applied } = await withDependency(
      'DATABASE_URL',
      'migrating the schema',
      () => migrateServiceSchema({ databaseUrl: config.DATABASE_URL, migrationsDir: options.migrationsDir }),
      MIGRATION_DEADLINE_MS,
    );
    if (applied.length) log.info({ applied }, 'migrations applied');
  }
  const auth = busAuthOf(config);
  const bus = await withDependency('NATS_URL', 'connecting to NATS', () =>
    Bus.connect({ natsUrl: config.NATS_URL, namespace: config.NATS_NAMESPACE, service: name, log, auth }),
  );
  // a NATS user may create only the streams its service owns (docs/architecture.md "Bus permissions");
  // on an anonymous development NATS every service creates them all, so one service runs alone
  await ensureStreams(bus, auth?.nkeySeed ? streamsOwnedBy(name as BusUser) : undefined, { replicas: config.NATS_STREAM_REPLICAS });
  const relay = new OutboxRelay({ bus, databaseUrl: config.DATABASE_URL, schema: schemaFromUrl(config.DATABASE_URL) });
  relay.start();
  const ctx: ServiceContext<C, P> = { name, config, prisma, bus, log, relay };

  const consumers = options.consumers?.(ctx) ?? [];
  const subscriptions = options.rpc?.(ctx) ?? [];
  const workers = [
    ...(options.workers?.(ctx) ?? []),
    startBusPruning(prisma as PrismaLike & RawSql, config, log),
  ];
  await options.beforeListen?.(ctx);

  const service = createService({
    ...options.http?.(ctx),
    name,
    log,
    identitySecret: config.IDENTITY_SECRET,
    routes: (router) => {
      kitRoutes(router, ctx);
      options.routes?.(router, ctx);
    },
    leanRoutes: leanRoutesOf(options.leanRoutes, ctx),
    publicPaths: options.publicPaths,
    formPaths: options.formPaths,
    opsEndpoints: options.internalOps ? 'internal' : 'public',
    readiness: {
      database: () => prisma.$queryRawUnsafe('SELECT 1'),
      nats: () => {
        if (!bus.isConnected()) throw new Error('NATS disconnected');
      },
    },
  });
  registerDeadLetterGauge(service, prisma, log);
  registerWorkerMetrics(service.metrics, workers);
  const http = await service.listen(config.PORT, options.host ?? process.env.HOST ?? '127.0.0.1');
  const internalOps = options.internalOps;
  const ops = internalOps?.port === undefined ? undefined : await service.listenOps(internalOps.port, internalOps.host).catch(async (err: unknown) => {
    await http.close();
    throw err;
  });
  log.info({ url: http.url, ...(ops ? { opsUrl: ops.url } : {}) }, `${name} listening`);

  let closed = false;
  return {
    ...ctx,
    http,
    ops,
    service,
    consumers,
    url: http.url,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([http.close(), ops?.close()]);
      for (const worker of workers) await worker.stop();
      for (const consumer of consumers) await consumer.stop();
      for (const sub of subscriptions) sub.unsubscribe();
      await relay.stop();
      await bus.close();
      await prisma.$disconnect();
    },
  };
}

/**
 * `pasar_dead_letters{kind="outbox"|"consumer"}` on /metrics: rows in the service's
 * `outbox_dead_letter` (events the relay could never publish) and `parked_message` (messages a
 * consumer could never handle). Counted from the tables, so every instance reports the same.
 */
function registerDeadLetterGauge(service: Service, prisma: PrismaLike, log: Logger): void {
  new Gauge({
    name: 'pasar_dead_letters',
    help: 'Dead letters waiting for replay: outbox rows never published, consumed messages never handled',
    labelNames: ['kind'],
    registers: [service.metrics],
    async collect() {
      try {
        const rows = (await prisma.$queryRawUnsafe(
          'SELECT (SELECT count(*) FROM outbox_dead_letter)::int AS outbox, (SELECT count(*) FROM parked_message)::int AS consumer',
        )) as { outbox: number; consumer: number }[];
        this.set({ kind: 'outbox' }, rows[0].outbox);
        this.set({ kind: 'consumer' }, rows[0].consumer);
      } catch (err) {
        log.warn({ err: String(err) }, 'could not count dead letters for /metrics');
      }
    },
  });
}

/**
 * The pruning worker every service runs: deletes published outbox rows and old inbox rows at
 * start and then every BUS_PRUNE_INTERVAL. Nothing lives in memory, so restarts and extra
 * instances change nothing.
 */
function startBusPruning(db: RawSql, config: BaseConfig, log: Logger): Worker {
  return startPeriodic({
    name: 'bus-pruning',
    intervalMs: config.BUS_PRUNE_INTERVAL,
    log,
    async round() {
      const pruned = await pruneBusTables(db, { outboxRetentionMs: config.OUTBOX_RETENTION, inboxRetentionMs: config.INBOX_RETENTION });
      if (pruned.outbox || pruned.inbox) log.info({ pruned }, 'pruned published outbox and old inbox rows');
    },
  });
}

/** The routes the kit mounts on every service before its own: the service's dead letters (operators). */
export function kitRoutes<C extends BaseConfig, P extends PrismaLike>(router: Router, ctx: ServiceContext<C, P>): void {
  deadLetterRoutes(router, { service: ctx.name, db: ctx.prisma as PrismaLike & RawSql, bus: ctx.bus, log: ctx.log });
}

/** The lean routes a service's features declare. */
function leanRoutesOf<C extends BaseConfig, P extends PrismaLike>(declare: StartServiceOptions<C, P>['leanRoutes'], ctx: ServiceContext<C, P>): LeanRoute[] {
  const router = leanRouter();
  declare?.(router, ctx);
  return router.routes;
}

/**
 * One slice of a service: what it mounts, consumes, answers and runs. Each service names its own
 * (`type CheckoutFeature = ServiceFeature<CheckoutConfig, PrismaClient>` in `src/feature.ts`),
 * each feature module exports one, and `src/features.ts` only lists them.
 */
export interface ServiceFeature<C extends BaseConfig, P extends PrismaLike> {
  name: string;
  routes?: (router: Router, ctx: ServiceContext<C, P>) => void;
  leanRoutes?: StartServiceOptions<C, P>['leanRoutes'];
  consumers?: StartServiceOptions<C, P>['consumers'];
  rpc?: StartServiceOptions<C, P>['rpc'];
  workers?: StartServiceOptions<C, P>['workers'];
}

/** The routes, consumers, rpc responders and workers of a list of features, for `startService`. */
export function mountFeatures<C extends BaseConfig, P extends PrismaLike>(
  features: readonly ServiceFeature<C, P>[],
): Pick<StartServiceOptions<C, P>, 'routes' | 'leanRoutes' | 'consumers' | 'rpc' | 'workers'> {
  return {
    routes: (router, ctx) => features.forEach((feature) => feature.routes?.(router, ctx)),
    leanRoutes: (router, ctx) => features.forEach((feature) => feature.leanRoutes?.(router, ctx)),
    consumers: (ctx) => features.flatMap((feature) => feature.consumers?.(ctx) ?? []),
    rpc: (ctx) => features.flatMap((feature) => feature.rpc?.(ctx) ?? []),
    workers: (ctx) => features.flatMap((feature) => feature.workers?.(ctx) ?? []),
  };
}
