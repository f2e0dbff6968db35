import { ALWAYS, DEV_ADMIN_PASSWORD, loadConfig, refusePublicDefaultsInProduction, serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const upstream = (port: number) => z.url().default(`http://127.0.0.1:${port}`);
/** An optional variable: set but empty counts as unset. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/**
 * Environment of the gateway (DESIGN §8): port 8080 and schema `identity` by default, local
 * defaults everywhere but IDENTITY_SECRET in production.
 */
export const gatewayConfigSchema = serviceConfigSchema({ port: 8080, schema: 'identity' }, {
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
  /** Keep-alive sockets per upstream. */
  UPSTREAM_MAX_SOCKETS: positiveInt(256),

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

  /** Shared sign-in rate-limit store across gateway instances; memory when unset. */
  REDIS_URL: optional(z.string().startsWith('redis')),
  SIGN_IN_LIMIT_PER_EMAIL: positiveInt(10),
  SIGN_IN_LIMIT_PER_IP: positiveInt(50),
  SIGN_IN_LIMIT_WINDOW_S: positiveInt(60),

  SESSION_TTL_DAYS: positiveInt(7),
  /** Resolved sessions are cached this long per instance (sign-out and password changes broadcast an invalidation). */
  SESSION_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  SESSION_CACHE_MAX: positiveInt(10_000),

  /** The administrator created or updated at start (both or neither). */
  ADMIN_EMAIL: optional(z.email().transform((v) => v.trim().toLowerCase())),
  ADMIN_PASSWORD: optional(z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').max(128)),
  ADMIN_FULL_NAME: z.string().min(1).default('Administrator'),
})
  .refine((c) => Boolean(c.ADMIN_EMAIL) === Boolean(c.ADMIN_PASSWORD), {
    message: 'set ADMIN_EMAIL and ADMIN_PASSWORD together (or neither)',
    path: ['ADMIN_PASSWORD'],
  })
  // the launcher's and .env.example's administrator password is public: never in production
  .superRefine((config, ctx) => {
    if (config.ADMIN_PASSWORD) refusePublicDefaultsInProduction({ ADMIN_PASSWORD: DEV_ADMIN_PASSWORD })(config, ctx);
  }, ALWAYS);

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Reads the gateway's config from env; throws a ConfigError naming every bad variable. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}
