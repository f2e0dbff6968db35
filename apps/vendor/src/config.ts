import { serviceConfigSchema } from '@pasar/service-kit';
import type { z } from 'zod';

/** vendor's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const vendorConfigSchema = serviceConfigSchema({ port: 4003, schema: 'vendor' }, {});
export type VendorConfig = z.infer<typeof vendorConfigSchema>;
