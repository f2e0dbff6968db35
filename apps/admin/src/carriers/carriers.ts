import { randomBytes } from 'node:crypto';
import { postalAddress } from '@pasar/contracts';
import { z } from 'zod';
import type { AdminConfig } from '../config';
import { isPdf, textPdf } from '../labels/pdf';
import { isCarrierMockOn } from './rules';

export type CarrierName = 'carrier_a' | 'carrier_b';

/** What a carrier is asked to collect and deliver (built from rpc.vendor.booking_context, kept for retries). */
export const carrierRequestSchema = z.object({
  /** The shipment id: also the booking's idempotency key at the carrier. */
  reference: z.uuid(),
  pickup: z.object({ label: z.string(), addressLine1: z.string(), postcode: z.string(), state: z.string() }),
  recipient: postalAddress,
  parcels: z.array(
    z.object({
      description: z.string(),
      quantity: z.number().int(),
      weightKg: z.string().nullable(),
      dimensionsCm: z.object({ lengthCm: z.string(), widthCm: z.string(), heightCm: z.string() }).nullable().optional(),
    }),
  ),
});
export type CarrierRequest = z.infer<typeof carrierRequestSchema>;

/**
 * The end of one carrier call: booked; `retryable` (5xx, timeout, unreachable, a garbled answer);
 * `rejected` (4xx: the carrier refuses this request, retrying would not help).
 */
export type CarrierOutcome =
  | { kind: 'booked'; trackingNumber: string; label: Buffer | null }
  | { kind: 'retryable'; error: string }
  | { kind: 'rejected'; error: string };

/** A carrier adapter (STYLE §5: a strategy chosen in deps from config). */
export interface Carrier {
  readonly name: CarrierName;
  book(request: CarrierRequest): Promise<CarrierOutcome>;
  /** The label PDF of a booked parcel (carrier_b serves it on a later GET; carrier_a's came with the booking). */
  fetchLabel(trackingNumber: string): Promise<Buffer>;
}

export type Carriers = Record<CarrierName, Carrier>;

export class CarrierCallError extends Error {
  override readonly name = 'CarrierCallError';
}

interface HttpAnswer {
  status: number;
  body: Buffer;
}

async function call(url: string, init: RequestInit, timeoutMs: number): Promise<HttpAnswer | { error: string }> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { error: `no answer within ${timeoutMs} ms` };
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { error: `unreachable${cause ? ` (${cause})` : ''}` };
  }
}

/** How an HTTP answer of a booking call ends: 2xx parsed by `read`, 4xx rejected, else retryable. */
function outcomeOf(
  carrier: CarrierName,
  answer: HttpAnswer | { error: string },
  read: (json: unknown) => { trackingNumber: string; label: Buffer | null } | null,
): CarrierOutcome {
  if ('error' in answer) return { kind: 'retryable', error: `${carrier}: ${answer.error}` };
  const detail = answer.body.toString('utf8').slice(0, 200);
  if (answer.status >= 400 && answer.status < 500) return { kind: 'rejected', error: `${carrier} answered ${answer.status}: ${detail}` };
  if (answer.status < 200 || answer.status >= 300) return { kind: 'retryable', error: `${carrier} answered ${answer.status}: ${detail}` };
  let booked: ReturnType<typeof read> = null;
  try {
    booked = read(JSON.parse(answer.body.toString('utf8')));
  } catch {
    booked = null;
  }
  return booked ? { kind: 'booked', ...booked } : { kind: 'retryable', error: `${carrier} answered ${answer.status} without a usable booking` };
}

const jsonHeaders = (request: CarrierRequest) => ({ 'content-type': 'application/json', 'idempotency-key': request.reference });
const trackingNumber = z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9-]+$/);

/**
 * carrier_a: `POST {CARRIER_A_URL}/v1/shipments` with an Idempotency-Key → `{waybillNo, labelPdf}`
 * (the label comes with the booking, base64).
 */
export function carrierA(baseUrl: string, timeoutMs: number): Carrier {
  const base = baseUrl.replace(/\/+$/, '');
  const answer = z.object({ waybillNo: trackingNumber, labelPdf: z.base64() });
  return {
    name: 'carrier_a',
    async book(request) {
      const res = await call(`${base}/v1/shipments`, { method: 'POST', headers: jsonHeaders(request), body: JSON.stringify(request) }, timeoutMs);
      return outcomeOf('carrier_a', res, (json) => {
        const parsed = answer.safeParse(json);
        if (!parsed.success) return null;
        const label = Buffer.from(parsed.data.labelPdf, 'base64');
        return isPdf(label) ? { trackingNumber: parsed.data.waybillNo, label } : null;
      });
    },
    async fetchLabel(waybillNo) {
      const res = await call(`${base}/v1/shipments/${encodeURIComponent(waybillNo)}/label`, { method: 'GET' }, timeoutMs);
      return pdfOf('carrier_a', res);
    },
  };
}

/** carrier_b: `POST {CARRIER_B_URL}/api/bookings` with an Idempotency-Key → `{trackingNumber}`; label on `GET /api/bookings/{n}/label`. */
export function carrierB(baseUrl: string, timeoutMs: number): Carrier {
  const base = baseUrl.replace(/\/+$/, '');
  const answer = z.object({ trackingNumber });
  return {
    name: 'carrier_b',
    async book(request) {
      const res = await call(`${base}/api/bookings`, { method: 'POST', headers: jsonHeaders(request), body: JSON.stringify(request) }, timeoutMs);
      return outcomeOf('carrier_b', res, (json) => {
        const parsed = answer.safeParse(json);
        return parsed.success ? { trackingNumber: parsed.data.trackingNumber, label: null } : null;
      });
    },
    async fetchLabel(number) {
      const res = await call(`${base}/api/bookings/${encodeURIComponent(number)}/label`, { method: 'GET' }, timeoutMs);
      return pdfOf('carrier_b', res);
    },
  };
}

function pdfOf(carrier: CarrierName, res: HttpAnswer | { error: string }): Buffer {
  if ('error' in res) throw new CarrierCallError(`${carrier} label: ${res.error}`);
  if (res.status !== 200 || !isPdf(res.body)) throw new CarrierCallError(`${carrier} label: answered ${res.status} without a PDF`);
  return res.body;
}

/** CARRIER_MOCK (outside production): no live call; a made-up tracking number and a PDF label made here. */
export function mockCarrier(name: CarrierName): Carrier {
  const labelFor = (number: string) => textPdf([`${name.toUpperCase()} (mock)`, `Tracking ${number}`]);
  return {
    name,
    book(request) {
      const number = `MOCK${name === 'carrier_a' ? 'A' : 'B'}-${request.reference.slice(0, 8).toUpperCase()}-${randomBytes(3).toString('hex').toUpperCase()}`;
      return Promise.resolve({ kind: 'booked', trackingNumber: number, label: labelFor(number) });
    },
    fetchLabel(number) {
      return Promise.resolve(labelFor(number));
    },
  };
}

/** The adapters deps.ts hands the use cases: the live ones, or the mock when CARRIER_MOCK is on outside production. */
export function carriersFromConfig(config: Pick<AdminConfig, 'NODE_ENV' | 'CARRIER_MOCK' | 'CARRIER_A_URL' | 'CARRIER_B_URL' | 'CARRIER_TIMEOUT_MS'>): Carriers {
  if (isCarrierMockOn(config)) return { carrier_a: mockCarrier('carrier_a'), carrier_b: mockCarrier('carrier_b') };
  return { carrier_a: carrierA(config.CARRIER_A_URL, config.CARRIER_TIMEOUT_MS), carrier_b: carrierB(config.CARRIER_B_URL, config.CARRIER_TIMEOUT_MS) };
}
