import { z } from 'zod';

/** The environments that accept the public development defaults of secrets; anything else is production. */
export const DEVELOPMENT_ENVIRONMENTS = ['development', 'test'] as const;

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d{1,9})(ms|s|m|h|d)$/;

/** A duration in env form (`1500ms`, `90s`, `30m`, `2h`, `7d`) as milliseconds; null when it is none. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  return match ? Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS] : null;
}

/** An env duration (see parseDuration) read as milliseconds, refused below `minMs`. */
export function durationSchema(minMs = 1) {
  return z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: 'a duration such as 1500ms, 90s, 30m, 2h or 7d' });
      return z.NEVER;
    }
    if (ms < minMs) {
      ctx.addIssue({ code: 'custom', message: `at least ${minMs} ms` });
      return z.NEVER;
    }
    return ms;
  });
}

/** A duration of at least 1 s (the bus retention settings). */
export const durationMs = durationSchema(1000);

/** Fields every service reads (DESIGN §8); each service extends it with its own. */
export const baseConfigSchema = z.object({
  /** A missing NODE_ENV is production: secrets must then be set (fail closed). */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535),
  DATABASE_URL: z.string().url().startsWith('postgres'),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  NATS_NAMESPACE: z.string().regex(/^([a-z][a-z0-9_]{0,40})?$/).default(''),
  IDENTITY_SECRET: z.string().min(16, 'IDENTITY_SECRET must be at least 16 characters'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MIGRATE_ON_START: z.stringbool().default(true),
  /** Published outbox rows are deleted after this (the bus-pruning worker). */
  OUTBOX_RETENTION: durationMs.default(7 * 86_400_000),
  /** Inbox rows (handled event ids) are deleted after this; keep it longer than any redelivery. */
  INBOX_RETENTION: durationMs.default(14 * 86_400_000),
  /** How often the bus-pruning worker runs. */
  BUS_PRUNE_INTERVAL: durationMs.default(3_600_000),
  /** Replicas of each JetStream stream: 1 on one NATS server, 3 on a NATS cluster (docs/deploy.md). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * The service's NKey user seed (`SU...`, made by `npm run nats:config`): its NATS user, whose
   * permissions come from the contracts (docs/architecture.md "Bus permissions"). Required outside
   * development and test; without it the connection is anonymous (a development NATS without auth).
   */
  NATS_NKEY_SEED: z.string().trim().startsWith('SU', 'NATS_NKEY_SEED must be an NKey user seed (it starts with SU)').optional(),
  /** TLS to NATS: the CA file of the server's certificate; with a client certificate when the server asks for one. */
  NATS_TLS_CA: z.string().min(1).optional(),
  NATS_TLS_CERT: z.string().min(1).optional(),
  NATS_TLS_KEY: z.string().min(1).optional(),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses env with the schema; throws one readable message naming every bad variable. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}

/** Development and tests only; production must set its own IDENTITY_SECRET. */
export const DEV_IDENTITY_SECRET = 'pasar-dev-identity-secret-change-me';

/** The administrator password the launcher (`npm start`) and .env.example use when none is set: public. */
export const DEV_ADMIN_PASSWORD = 'pasar-admin-2026';

/** Secret name → its public development default (published in the repository, so never safe in production). */
export type DevSecrets = Record<string, string>;

/** True when NODE_ENV (as given in env) accepts public development defaults; unset or empty means production. */
export function isDevelopmentEnv(nodeEnv: unknown): boolean {
  return (DEVELOPMENT_ENVIRONMENTS as readonly unknown[]).includes(nodeEnv);
}

const unset = (value: unknown) => value === undefined || value === '';

/**
 * Fills the public defaults of `secrets` in development and test only; in production (NODE_ENV
 * unset, empty or `production`) a missing secret stays missing.
 */
function withDevSecrets(secrets: DevSecrets) {
  return (env: unknown): unknown => {
    if (typeof env !== 'object' || env === null) return env;
    const values = { ...(env as Record<string, unknown>) };
    if (unset(values.NODE_ENV)) delete values.NODE_ENV;
    if (!isDevelopmentEnv(values.NODE_ENV)) return values;
    for (const [name, devDefault] of Object.entries(secrets)) if (unset(values[name])) values[name] = devDefault;
    return values;
  };
}

/**
 * A refinement (add it with `{ when: () => true }` so it reports beside every other bad
 * variable) refusing, outside development and test, each secret that is missing or holds its
 * public default: the service refuses to start, naming the variable.
 */
export function refusePublicDefaultsInProduction(secrets: DevSecrets) {
  return <T>(config: T, ctx: z.core.$RefinementCtx<T>) => {
    if (typeof config !== 'object' || config === null) return; // the object check already failed
    const values = config as Record<string, unknown>;
    if (isDevelopmentEnv(values.NODE_ENV)) return;
    const nodeEnv = `NODE_ENV is ${String(values.NODE_ENV)}`;
    for (const [name, devDefault] of Object.entries(secrets)) {
      if (unset(values[name])) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} must be set: the public development default is refused outside development and test (${nodeEnv})` });
      } else if (values[name] === devDefault) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is the public development default; set a secret of your own (${nodeEnv})` });
      }
    }
  };
}

/**
 * A refinement (with ALWAYS) refusing, outside development and test, a service without NATS
 * credentials: in production the bus is never used anonymously (fail closed).
 */
export function refuseAnonymousNatsInProduction<T>(config: T, ctx: z.core.$RefinementCtx<T>): void {
  if (typeof config !== 'object' || config === null) return;
  const values = config as Record<string, unknown>;
  if (isDevelopmentEnv(values.NODE_ENV) || !unset(values.NATS_NKEY_SEED)) return;
  ctx.addIssue({
    code: 'custom',
    path: ['NATS_NKEY_SEED'],
    message: `NATS_NKEY_SEED must be set: a service connects to NATS anonymously only in development and test (NODE_ENV is ${String(values.NODE_ENV)})`,
  });
}

/** The bus credentials and TLS a config names (Bus.connect's `auth`), or undefined for an anonymous connection. */
export function busAuthOf(config: Pick<BaseConfig, 'NATS_NKEY_SEED' | 'NATS_TLS_CA' | 'NATS_TLS_CERT' | 'NATS_TLS_KEY'>) {
  const tls =
    config.NATS_TLS_CA || config.NATS_TLS_CERT
      ? { ...(config.NATS_TLS_CA ? { caFile: config.NATS_TLS_CA } : {}), ...(config.NATS_TLS_CERT ? { certFile: config.NATS_TLS_CERT } : {}), ...(config.NATS_TLS_KEY ? { keyFile: config.NATS_TLS_KEY } : {}) }
      : undefined;
  if (!config.NATS_NKEY_SEED && !tls) return undefined;
  return { ...(config.NATS_NKEY_SEED ? { nkeySeed: config.NATS_NKEY_SEED } : {}), ...(tls ? { tls } : {}) };
}

/** Runs a refinement even when fields already failed, so one message names every bad variable. */
export const ALWAYS = { when: () => true };

/**
 * A service's env schema: the base fields with its local defaults (port, own schema) plus the
 * service's own fields. `devSecrets` (IDENTITY_SECRET always included) get their public
 * defaults only when NODE_ENV is development or test; in production each must be set, and to
 * something other than its public default.
 */
export function serviceConfigSchema<S extends z.ZodRawShape>(service: { port: number; schema: string }, shape: S, devSecrets: DevSecrets = {}) {
  const secrets: DevSecrets = { IDENTITY_SECRET: DEV_IDENTITY_SECRET, ...devSecrets };
  return z.preprocess(
    withDevSecrets(secrets),
    baseConfigSchema
      .extend({
        PORT: baseConfigSchema.shape.PORT.default(service.port),
        DATABASE_URL: baseConfigSchema.shape.DATABASE_URL.default(`postgresql://postgres@127.0.0.1:5432/postgres?schema=${service.schema}`),
      })
      .extend(shape)
      .superRefine(refusePublicDefaultsInProduction(secrets), ALWAYS)
      .superRefine(refuseAnonymousNatsInProduction, ALWAYS),
  );
}
