import { serviceConfigSchema } from '@pasar/service-kit';
import type { z } from 'zod';

/** checkout's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const checkoutConfigSchema = serviceConfigSchema({ port: 4001, schema: 'checkout' }, {});
export type CheckoutConfig = z.infer<typeof checkoutConfigSchema>;
