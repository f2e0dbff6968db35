import { serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** `30m`, `90s`, `2h`, `1500ms`, read as milliseconds. */
const duration = (fallback: string) =>
  z
    .string()
    .regex(/^\d{1,9}(ms|s|m|h)$/, 'a duration such as 10m, 90s, 2h or 1500ms')
    .default(fallback)
    .transform((value) => {
      const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(value) as RegExpExecArray;
      return Number(amount) * ({ ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as Record<string, number>)[unit];
    });

/** b2b's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const b2bConfigSchema = serviceConfigSchema({ port: 4002, schema: 'b2b' }, {
  /** Where people open the app; the invite e-mail's setup link starts with it. */
  APP_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080'),
  /** Public storage location: ssm_cert_url is this + '/' + the stored path (DESIGN §7). */
  PUBLIC_STORAGE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080/storage'),
  /** A B2B checkout reservation not confirmed by checkout.order.created within this is released (DESIGN §6). */
  B2B_RESERVATION_TTL: duration('10m'),
  /** How often the durable sweep looks for expired reservations. */
  B2B_RESERVATION_SWEEP: duration('30s'),
});
export type B2bConfig = z.infer<typeof b2bConfigSchema>;
