import { durationSchema, serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** b2b's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const b2bConfigSchema = serviceConfigSchema({ port: 4002, schema: 'b2b' }, {
  /** Where people open the app; the invite e-mail's setup link starts with it. */
  APP_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080'),
  /** Public storage location: ssm_cert_url is this + '/' + the stored path (DESIGN §7). */
  PUBLIC_STORAGE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080/storage'),
  /** A B2B checkout reservation not confirmed by checkout.order.created within this is released (DESIGN §6). */
  B2B_RESERVATION_TTL: durationSchema().default(10 * 60_000),
  /** How often the durable sweep looks for expired reservations. */
  B2B_RESERVATION_SWEEP: durationSchema().default(30_000),
  /** Team invites one company may send in 24 hours (every attempt counts); past it 429 `invite_limit_reached`. */
  B2B_INVITES_PER_DAY: z.coerce.number().int().min(1).max(10_000).default(20),
});
export type B2bConfig = z.infer<typeof b2bConfigSchema>;
