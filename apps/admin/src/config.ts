import { baseConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** Development and tests only (the gateway's dev default is the same); production sets its own. */
export const DEV_IDENTITY_SECRET = 'pasar-dev-identity-secret-change-me';

/** admin's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const adminConfigSchema = z.preprocess(
  (env: Record<string, unknown>) => (env.NODE_ENV === 'production' || env.IDENTITY_SECRET ? env : { ...env, IDENTITY_SECRET: DEV_IDENTITY_SECRET }),
  baseConfigSchema.extend({
    PORT: baseConfigSchema.shape.PORT.default(4004),
    DATABASE_URL: baseConfigSchema.shape.DATABASE_URL.default('postgresql://postgres@127.0.0.1:5432/postgres?schema=admin'),
  }),
);
export type AdminConfig = z.infer<typeof adminConfigSchema>;
