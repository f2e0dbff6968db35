import { parseDuration, serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

/** Development and tests only: production must set its own LABEL_SIGNING_KEY (DESIGN §7). */
export const DEV_LABEL_SIGNING_KEY = 'pasar-dev-label-signing-key-change-me';

/** `carrier_a=6000,carrier_b=5000` → divisors (cm³ per kg); null when malformed. */
export function parseDivisors(value: string): Record<'carrier_a' | 'carrier_b', number> | null {
  const divisors: Partial<Record<string, number>> = {};
  for (const part of value.split(',')) {
    const match = /^\s*(carrier_a|carrier_b)\s*=\s*(\d{3,6})\s*$/.exec(part);
    if (!match || divisors[match[1]] !== undefined) return null;
    divisors[match[1]] = Number(match[2]);
  }
  const { carrier_a: a, carrier_b: b } = divisors;
  return a !== undefined && b !== undefined ? { carrier_a: a, carrier_b: b } : null;
}

/** `5m,15m,1h,6h,24h` → the waits in milliseconds (one per retry, DESIGN §5). */
export function parseRetryWaits(value: string): number[] | null {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.length > 20) return null;
  const waits: number[] = [];
  for (const part of parts) {
    const wait = parseDuration(part);
    if (wait === null) return null;
    waits.push(wait);
  }
  return waits;
}

const httpUrl = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);

/** admin's env (DESIGN §8): local defaults everywhere but IDENTITY_SECRET and LABEL_SIGNING_KEY in production. */
export const adminConfigSchema = serviceConfigSchema(
  { port: 4004, schema: 'admin' },
  {
    /** Where people open the app; the credentials e-mail's sign-in link starts with it. */
    APP_URL: httpUrl('http://127.0.0.1:8080'),
    /** Carrier APIs (DESIGN §7); the testkit's fake carrier speaks both. */
    CARRIER_A_URL: httpUrl('http://127.0.0.1:4701'),
    CARRIER_B_URL: httpUrl('http://127.0.0.1:4702'),
    /** A carrier call that has not answered after this long counts as a timeout (retryable); below the gateway's 10 s upstream timeout. */
    CARRIER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(8_000),
    /** true: bookings skip the live carrier call (honoured only when NODE_ENV is not production). */
    CARRIER_MOCK: z.stringbool().default(false),
    /** The wait before each retry of a booking that got a 5xx or timeout; after the last, failed. */
    CARRIER_RETRY_WAITS: z
      .string()
      .default('5m,15m,1h,6h,24h')
      .transform((value, ctx) => {
        const waits = parseRetryWaits(value);
        if (!waits) {
          ctx.addIssue({ code: 'custom', message: 'a comma list of durations such as 5m,15m,1h,6h,24h (units ms, s, m, h, d)' });
          return z.NEVER;
        }
        return waits;
      }),
    /** How often the retry worker looks for due bookings. */
    CARRIER_RETRY_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
    /** Local label storage (the storage driver's disk root). */
    STORAGE_DIR: z.string().min(1).default('.data/storage'),
    /** HMAC key of signed label URLs. */
    LABEL_SIGNING_KEY: z.string().min(16, 'LABEL_SIGNING_KEY must be at least 16 characters'),
    /** Volumetric divisor per carrier (cm³ per kg) for the volumetric weight kept at booking. */
    VOLUMETRIC_DIVISORS: z
      .string()
      .default('carrier_a=6000,carrier_b=5000')
      .transform((value, ctx) => {
        const divisors = parseDivisors(value);
        if (!divisors) {
          ctx.addIssue({ code: 'custom', message: 'carrier_a=<cm³ per kg>,carrier_b=<cm³ per kg>, e.g. carrier_a=6000,carrier_b=5000' });
          return z.NEVER;
        }
        return divisors;
      }),
    /** Reconciliation tolerances: weight_over beyond max(kg, %), cost_over beyond max(amount, %), unbilled after a duration. */
    RECON_WEIGHT_TOLERANCE_KG: z.coerce.number().min(0).max(1000).default(0.1),
    RECON_WEIGHT_TOLERANCE_PERCENT: z.coerce.number().min(0).max(1000).default(5),
    RECON_COST_TOLERANCE: z.coerce.number().min(0).max(1_000_000).default(0.5),
    RECON_COST_TOLERANCE_PERCENT: z.coerce.number().min(0).max(1000).default(2),
    RECON_UNBILLED_AFTER: z
      .string()
      .default('45d')
      .transform((value, ctx) => {
        const ms = parseDuration(value.trim());
        if (ms === null || ms <= 0) {
          ctx.addIssue({ code: 'custom', message: 'a duration such as 45d (units ms, s, m, h, d)' });
          return z.NEVER;
        }
        return ms;
      }),
    /** Public base of the API for absolute label URLs (e.g. https://api.example/api/v1); empty: root-relative `/api/v1/...`. */
    PUBLIC_API_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
  },
  // public development default, refused outside development and test (fail closed)
  { LABEL_SIGNING_KEY: DEV_LABEL_SIGNING_KEY },
);
export type AdminConfig = z.infer<typeof adminConfigSchema>;
