import { durationSchema, serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/**
 * The payment provider's sandbox credentials: public, so accepted only when NODE_ENV is
 * development or test (a forged notification signed with them must not mark an order paid).
 */
export const DEV_PAYMENT_SECRETS = {
  PAYMENT_MERCHANT_ID: 'pasar_dev',
  PAYMENT_VERIFY_KEY: 'pasar-dev-verify-key',
  PAYMENT_SECRET_KEY: 'pasar-dev-secret-key',
} as const;

/**
 * checkout's env (DESIGN §8): local defaults everywhere, but IDENTITY_SECRET and the payment
 * keys must be set (to something other than their public defaults) in production.
 */
export const checkoutConfigSchema = serviceConfigSchema({ port: 4001, schema: 'checkout' }, {
  /** Where people open the app; links in e-mails (the family invite's setup link) start with it. */
  APP_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080'),
  /** Public storage location: an image URL is this + '/' + the stored path (DESIGN §7). */
  PUBLIC_STORAGE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080/storage'),
  // payments (DESIGN §6): the hosted payment page and its signatures; the dev defaults (DEV_PAYMENT_SECRETS) only reach a sandbox
  PAYMENT_MERCHANT_ID: z.string().min(1),
  PAYMENT_VERIFY_KEY: z.string().min(1),
  PAYMENT_SECRET_KEY: z.string().min(1),
  PAYMENT_PAGE_URL: z.url({ protocol: /^https?$/ }).default('https://sandbox.payment.example/RMS/pay'),
  /** true: initiate marks the order paid itself (honoured only when NODE_ENV is not production). */
  PAYMENT_MOCK: z.stringbool().default(false),
  PAYMENT_RETURN_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080/payment/return'),
  PAYMENT_CALLBACK_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080/api/v1/payments/notify'),
  /** How long verified payment notifications (the payments' evidence) are kept; pruned every BUS_PRUNE_INTERVAL. */
  PAYMENT_NOTIFICATION_RETENTION: durationSchema(60_000).default(400 * 24 * 3_600_000),
  /** How long notifications that did not verify (anyone may send them) are kept. */
  PAYMENT_UNVERIFIED_NOTIFICATION_RETENTION: durationSchema(60_000).default(7 * 24 * 3_600_000),
  /** Invites one family may send per 24 hours (accepted or refused); one more answers 429. */
  FAMILY_INVITES_PER_DAY: z.coerce.number().int().min(1).max(10_000).default(20),
  /** How often the durable sweep expires unpaid orders past expires_at. */
  ORDER_EXPIRY_SWEEP_MS: z.coerce.number().int().min(50).max(3_600_000).default(30_000),
  /** How long an unpaid order holds stock, voucher, points (DESIGN §5): `30m`, `90s`, `2h`, `1500ms`; read as milliseconds. */
  ORDER_PAYMENT_TTL: durationSchema().default(30 * 60_000),
}, DEV_PAYMENT_SECRETS);
export type CheckoutConfig = z.infer<typeof checkoutConfigSchema>;
