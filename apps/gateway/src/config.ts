import { ALWAYS, DEV_ADMIN_PASSWORD, isDevelopmentEnv, loadConfig, refusePublicDefaultsInProduction, serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** A comma-separated list of instance URLs (`http://a:4001,http://b:4001`), trimmed, without empties or repeats. */
export function parseUpstreamList(text: string): string[] {
  const urls = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => new URL(part).toString().replace(/\/$/, ''));
  return [...new Set(urls)];
}
import { DEFAULT_CONSOLE_DIR } from './console/static';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** One instance URL, or several comma-separated (N instances of the service, README "Running N instances"). */
const upstream = (port: number) =>
  z
    .string()
    .default(`http://127.0.0.1:${port}`)
    .transform((text, ctx) => {
      const urls = text.split(',').map((part) => part.trim()).filter(Boolean);
      for (const url of urls) {
        if (!z.url({ protocol: /^https?$/ }).safeParse(url).success) ctx.addIssue({ code: 'custom', message: `"${url}" is not an http(s) URL` });
      }
      if (urls.length === 0) ctx.addIssue({ code: 'custom', message: 'expected one URL or a comma-separated list of URLs' });
      return parseUpstreamList(urls.filter((url) => URL.canParse(url)).join(','));
    });
/** An optional variable: set but empty counts as unset. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** `<count>/<window>` such as `10/1h`: at most `count` requests per IP per window. */
export interface RateLimit {
  points: number;
  durationS: number;
}

const RATE_LIMIT_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };
const rateLimitText = z
  .string()
  .trim()
  .regex(/^\d{1,7}\/\d{1,5}[smh]$/, 'expected <count>/<window> such as 10/1h, 600/1m or 5/30s')
  .transform((text): RateLimit => {
    const [, count, amount, unit] = /^(\d+)\/(\d+)([smh])$/.exec(text) as RegExpExecArray;
    return { points: Number(count), durationS: Number(amount) * RATE_LIMIT_UNITS[unit] };
  })
  .refine((limit) => limit.points > 0 && limit.durationS > 0, 'count and window must be positive');

/**
 * The per-IP limits of the endpoints bots abuse, and their defaults: [production, development
 * and test]. The second is loose enough for a test suite of a few hundred requests from one address.
 */
const RATE_LIMIT_DEFAULTS = {
  RATE_LIMIT_SIGN_UP: ['10/1h', '2000/1m'],
  RATE_LIMIT_PAYMENT_NOTIFY: ['600/1m', '5000/1m'],
  RATE_LIMIT_FAMILY_INVITES: ['30/1h', '2000/1m'],
  RATE_LIMIT_VENDOR_APPLICATIONS: ['5/1h', '2000/1m'],
} as const;

/** Fills the unset RATE_LIMIT_* with the defaults of the environment (a missing NODE_ENV is production). */
function withRateLimitDefaults(env: unknown): unknown {
  if (typeof env !== 'object' || env === null) return env;
  const values = { ...(env as Record<string, unknown>) };
  const development = isDevelopmentEnv(values.NODE_ENV);
  for (const [name, [production, loose]] of Object.entries(RATE_LIMIT_DEFAULTS)) {
    if (values[name] === undefined || values[name] === '') values[name] = development ? loose : production;
  }
  return values;
}

/**
 * Environment of the gateway (DESIGN §8): port 8080 and schema `identity` by default, local
 * defaults everywhere but IDENTITY_SECRET in production.
 */
export const gatewayConfigSchema = z.preprocess(withRateLimitDefaults, serviceConfigSchema({ port: 8080, schema: 'identity' }, {
  /** Interface to listen on; set 0.0.0.0 in a container. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Whose X-Forwarded-For to believe for the client IP (sign-in limits): express `trust proxy`
   * as `true`, a hop count, or addresses/subnets (comma list). Behind a load balancer, name it.
   */
  TRUST_PROXY: z
    .string()
    .default('loopback')
    .transform((v): boolean | number | string => (v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v)),

  /**
   * The internal listener of /readyz and /metrics (never on the public port; /healthz stays
   * public). Unset: not served; 0: any free port (tests).
   */
  METRICS_PORT: optional(z.coerce.number().int().min(0).max(65535)),
  /** Interface of the internal listener; loopback unless a scraper elsewhere must reach it. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),

  CHECKOUT_URL: upstream(4001),
  B2B_URL: upstream(4002),
  VENDOR_URL: upstream(4003),
  ADMIN_URL: upstream(4004),
  /** An upstream that has not answered after this long gets a 504. */
  UPSTREAM_TIMEOUT_MS: positiveInt(10_000),
  /** Keep-alive sockets per upstream instance: also the most requests one instance takes at a time (beyond: 503 service_busy). */
  UPSTREAM_MAX_SOCKETS: positiveInt(256),
  /** How often every instance of a service with several is probed at /healthz (ms); 0 turns the active probe off. */
  UPSTREAM_HEALTH_INTERVAL_MS: z.coerce.number().int().min(0).default(2_000),
  /** Without the probe (UPSTREAM_HEALTH_INTERVAL_MS=0), an instance marked down (refused or timed out) gets one trial request after this long. */
  UPSTREAM_RETRY_DOWN_AFTER_MS: positiveInt(5_000),

  /** The operator console's built bundle (apps/console/dist), served at /console/. */
  CONSOLE_DIR: z.string().min(1).default(DEFAULT_CONSOLE_DIR),

  /** Comma-separated browser origins allowed to call with credentials. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ),

  /** Shared rate-limit store across gateway instances (sign-in and abuse limits); memory when unset. */
  REDIS_URL: optional(z.string().startsWith('redis')),
  /**
   * The most gateway replicas that may run at once (an autoscaler's maximum). Above 1, production
   * needs REDIS_URL: with counts in memory every replica would give each IP and e-mail its own budget.
   */
  GATEWAY_REPLICAS: positiveInt(1),
  /** Password guesses within the window: hard per IP, and per e-mail from one IP (only failures count). */
  SIGN_IN_LIMIT_PER_IP: positiveInt(50),
  SIGN_IN_LIMIT_PER_EMAIL_IP: positiveInt(10),
  /**
   * Distinct IPs with a failure for one e-mail in the window before its backoff starts: pauses of
   * BASE, 2×BASE, ... at most MAX seconds, not applied to a device that signed in as the e-mail before.
   */
  SIGN_IN_LIMIT_PER_EMAIL: positiveInt(5),
  SIGN_IN_BACKOFF_BASE_S: positiveInt(1),
  SIGN_IN_BACKOFF_MAX_S: positiveInt(30),
  SIGN_IN_LIMIT_WINDOW_S: positiveInt(60),
  /**
   * Requests per IP (`<count>/<window>`, window in s, m or h) of the endpoints bots abuse:
   * POST /auth/sign-up, /payments/notify, /family/members, /vendor-applications. Defaults in
   * RATE_LIMIT_DEFAULTS (stricter unless NODE_ENV is development or test).
   */
  RATE_LIMIT_SIGN_UP: rateLimitText,
  RATE_LIMIT_PAYMENT_NOTIFY: rateLimitText,
  RATE_LIMIT_FAMILY_INVITES: rateLimitText,
  RATE_LIMIT_VENDOR_APPLICATIONS: rateLimitText,

  SESSION_TTL_DAYS: positiveInt(7),
  /** Resolved sessions are cached this long per instance (sign-out and password changes broadcast an invalidation). */
  SESSION_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  SESSION_CACHE_MAX: positiveInt(10_000),

  /** Live streams (server-sent events) open at once per user: on all gateway instances together with REDIS_URL, else per instance. */
  LIVE_MAX_STREAMS_PER_USER: positiveInt(5),
  /** A `:` heartbeat this often (ms); each instance renews its streams' leases in Redis as often. */
  LIVE_HEARTBEAT_MS: positiveInt(15_000),
  /**
   * How long a stream's slot in Redis outlives the instance that stopped renewing it (ms): a
   * replica killed without closing its streams frees them after this. Default 2.5 heartbeats; more than two.
   */
  LIVE_STREAM_LEASE_MS: optional(z.coerce.number().int().positive()),
  /** A stream that carried no event for this long is closed (ms); the client reconnects with its Last-Event-ID. */
  LIVE_IDLE_TIMEOUT_MS: positiveInt(30 * 60 * 1000),
  /** Bytes a client may leave unread before it is dropped. */
  LIVE_MAX_BUFFER_BYTES: positiveInt(256 * 1024),
  /** A resume further behind than this many JetStream messages gets a fresh snapshot instead of a replay. */
  LIVE_REPLAY_MAX_MESSAGES: positiveInt(10_000),

  /** The administrator created or updated at start (both or neither). */
  ADMIN_EMAIL: optional(z.email().transform((v) => v.trim().toLowerCase())),
  ADMIN_PASSWORD: optional(z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').max(128)),
  ADMIN_FULL_NAME: z.string().min(1).default('Administrator'),
})
  .refine((c) => Boolean(c.ADMIN_EMAIL) === Boolean(c.ADMIN_PASSWORD), {
    message: 'set ADMIN_EMAIL and ADMIN_PASSWORD together (or neither)',
    path: ['ADMIN_PASSWORD'],
  })
  .refine((c) => c.LIVE_STREAM_LEASE_MS === undefined || c.LIVE_STREAM_LEASE_MS > 2 * c.LIVE_HEARTBEAT_MS, {
    message: 'LIVE_STREAM_LEASE_MS must be longer than two LIVE_HEARTBEAT_MS (a missed renewal must not free an open stream)',
    path: ['LIVE_STREAM_LEASE_MS'],
  })
  .refine((c) => c.NODE_ENV !== 'production' || c.GATEWAY_REPLICAS === 1 || Boolean(c.REDIS_URL), {
    message: 'set REDIS_URL in production when GATEWAY_REPLICAS is above 1 (rate limits would be per replica)',
    path: ['REDIS_URL'],
  })
  // the launcher's and .env.example's administrator password is public: never in production
  .superRefine((config, ctx) => {
    if (config.ADMIN_PASSWORD) refusePublicDefaultsInProduction({ ADMIN_PASSWORD: DEV_ADMIN_PASSWORD })(config, ctx);
  }, ALWAYS)
  .transform((config) => ({ ...config, LIVE_STREAM_LEASE_MS: config.LIVE_STREAM_LEASE_MS ?? Math.round(2.5 * config.LIVE_HEARTBEAT_MS) })));

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Reads the gateway's config from env; throws a ConfigError naming every bad variable. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}
