import { serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** A courier's tracking-page URL with a `{trackingId}` placeholder (DESIGN §7). */
const trackingUrlTemplate = (fallback: string) =>
  z.string().url().includes('{trackingId}', { message: 'the template must contain {trackingId}' }).default(fallback);

/** vendor's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET in production. */
export const vendorConfigSchema = serviceConfigSchema(
  { port: 4003, schema: 'vendor' },
  {
    CARRIER_A_TRACKING_URL: trackingUrlTemplate('https://tracking.carrier-a.example/track?id={trackingId}'),
    CARRIER_B_TRACKING_URL: trackingUrlTemplate('https://tracking.carrier-b.example/parcels/{trackingId}'),
  },
);
export type VendorConfig = z.infer<typeof vendorConfigSchema>;
