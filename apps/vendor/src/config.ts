import { baseConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** Development and tests only (the gateway's dev default is the same); production sets its own. */
export const DEV_IDENTITY_SECRET = 'pasar-dev-identity-secret-change-me';

/** vendor's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const vendorConfigSchema = z.preprocess(
  (env: Record<string, unknown>) => (env.NODE_ENV === 'production' || env.IDENTITY_SECRET ? env : { ...env, IDENTITY_SECRET: DEV_IDENTITY_SECRET }),
  baseConfigSchema.extend({
    PORT: baseConfigSchema.shape.PORT.default(4003),
    DATABASE_URL: baseConfigSchema.shape.DATABASE_URL.default('postgresql://postgres@127.0.0.1:5432/postgres?schema=vendor'),
  }),
);
export type VendorConfig = z.infer<typeof vendorConfigSchema>;
