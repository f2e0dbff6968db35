import { durationSchema, parseDuration, serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** A courier's tracking-page URL with a `{trackingId}` placeholder (DESIGN §7). */
const trackingUrlTemplate = (fallback: string) =>
  z.string().url().includes('{trackingId}', { message: 'the template must contain {trackingId}' }).default(fallback);

/** `5s,5m,30m` → the waits in milliseconds; null when a part is not a duration (units ms, s, m, h, d). */
export function parseDurationList(value: string): number[] | null {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.length > 20) return null;
  const waits = parts.map(parseDuration);
  return waits.every((wait): wait is number => wait !== null) ? waits : null;
}

const durationList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const waits = parseDurationList(value);
      if (!waits) {
        ctx.addIssue({ code: 'custom', message: `a comma list of durations such as ${fallback} (units ms, s, m, h, d)` });
        return z.NEVER;
      }
      return waits;
    });

/** vendor's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const vendorConfigSchema = serviceConfigSchema(
  { port: 4003, schema: 'vendor' },
  {
    CARRIER_A_TRACKING_URL: trackingUrlTemplate('https://tracking.carrier-a.example/track?id={trackingId}'),
    CARRIER_B_TRACKING_URL: trackingUrlTemplate('https://tracking.carrier-b.example/parcels/{trackingId}'),
    /** Webhooks: the wait before each retry of a delivery (5xx, 429, 408, network error); after the last, failed. */
    WEBHOOK_RETRY_WAITS: durationList('5s,5m,30m,2h,5h,10h,10h,24h'),
    /** An attempt that has not answered after this long failed (retried); redirects are never followed. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** An endpoint whose every attempt failed for this long is disabled and its vendor e-mailed. */
    WEBHOOK_DISABLE_AFTER: z.string().default('3d').pipe(durationSchema(1)),
    /** How often the delivery worker looks for due retries (new deliveries wake it at once). */
    WEBHOOK_POLL_MS: z.coerce.number().int().min(20).max(600_000).default(1_000),
    /** Attempts in flight per vendor instance, and per endpoint across instances (a slow receiver blocks only its own). */
    WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1_000).default(64),
    WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  },
);
export type VendorConfig = z.infer<typeof vendorConfigSchema>;
