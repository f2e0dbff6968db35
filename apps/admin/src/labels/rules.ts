import { createHmac, timingSafeEqual } from 'node:crypto';

/** A signed label URL lives 1 hour (spec: Limits). */
export const LABEL_URL_TTL_MS = 60 * 60 * 1000;

/** The public path that serves a label with a valid signature, without a session (gateway row `/shipment-labels`, public). */
export const LABEL_PATH = '/shipment-labels';

/** HMAC-SHA256 over the shipment id and the expiry (unix seconds), hex. */
export function labelSignature(key: string, shipmentId: string, expiresUnix: number): string {
  return createHmac('sha256', key).update(`label:${shipmentId}:${expiresUnix}`).digest('hex');
}

/** The signed URL of a shipment's label, valid until `expiresAt`; `base` is the public API URL or `/api/v1`. */
export function signedLabelUrl(key: string, base: string, shipmentId: string, now: Date): { url: string; expiresAt: Date } {
  const expiresUnix = Math.floor((now.getTime() + LABEL_URL_TTL_MS) / 1000);
  const signature = labelSignature(key, shipmentId, expiresUnix);
  return {
    url: `${base.replace(/\/+$/, '')}${LABEL_PATH}/${shipmentId}?expires=${expiresUnix}&signature=${signature}`,
    expiresAt: new Date(expiresUnix * 1000),
  };
}

export type LabelAccess = { ok: true } | { ok: false; code: 'label_url_expired' | 'label_url_invalid'; detail: string };

/** A label URL is honoured when its signature matches (constant-time) and it has not expired; both refusals answer 403. */
export function checkLabelUrl(key: string, shipmentId: string, expires: string, signature: string, now: Date): LabelAccess {
  const expected = Buffer.from(labelSignature(key, shipmentId, Number(expires)), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (!/^\d{1,12}$/.test(expires) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, code: 'label_url_invalid', detail: 'the label URL is not valid' };
  }
  if (Number(expires) * 1000 <= now.getTime()) return { ok: false, code: 'label_url_expired', detail: 'the label URL has expired; ask for a new one' };
  return { ok: true };
}

/** The storage key of a shipment's label. */
export const labelKeyOf = (shipmentId: string): string => `labels/${shipmentId}.pdf`;
