import { serviceConfigSchema } from '@pasar/service-kit';
import type { z } from 'zod';

/** admin's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const adminConfigSchema = serviceConfigSchema({ port: 4004, schema: 'admin' }, {});
export type AdminConfig = z.infer<typeof adminConfigSchema>;
