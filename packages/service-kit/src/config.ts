import { z } from 'zod';

/** Fields every service reads (DESIGN §8); each service extends it with its own. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535),
  DATABASE_URL: z.string().url().startsWith('postgres'),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  NATS_NAMESPACE: z.string().regex(/^([a-z][a-z0-9_]{0,40})?$/).default(''),
  IDENTITY_SECRET: z.string().min(16, 'IDENTITY_SECRET must be at least 16 characters'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MIGRATE_ON_START: z.stringbool().default(true),
  /** Replicas of each JetStream stream: 1 on one NATS server, 3 on a NATS cluster (docs/deploy.md). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
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

function withDevSecret(env: unknown): unknown {
  if (typeof env !== 'object' || env === null) return env;
  const values = env as Record<string, unknown>;
  if (values.NODE_ENV === 'production' || values.IDENTITY_SECRET) return env;
  return { ...values, IDENTITY_SECRET: DEV_IDENTITY_SECRET };
}

/**
 * A service's env schema: the base fields with its local defaults (port, own schema, dev
 * identity secret outside production) plus the service's own fields.
 */
export function serviceConfigSchema<S extends z.ZodRawShape>(service: { port: number; schema: string }, shape: S) {
  return z.preprocess(
    withDevSecret,
    baseConfigSchema.extend({
      PORT: baseConfigSchema.shape.PORT.default(service.port),
      DATABASE_URL: baseConfigSchema.shape.DATABASE_URL.default(`postgresql://postgres@127.0.0.1:5432/postgres?schema=${service.schema}`),
    }).extend(shape),
  );
}
