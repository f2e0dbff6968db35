import { serviceConfigSchema } from '@pasar/service-kit';
import type { z } from 'zod';

/** b2b's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const b2bConfigSchema = serviceConfigSchema({ port: 4002, schema: 'b2b' }, {});
export type B2bConfig = z.infer<typeof b2bConfigSchema>;
