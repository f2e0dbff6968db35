import { createHmac } from 'node:crypto';

/** The HMAC key of a `whsec_` secret: the base64 after the prefix, decoded (Standard Webhooks). */
const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * for each secret, space-separated (two during a rotation's overlap). Node's HMAC directly: the
 * reference library (`standardwebhooks`) gives the same header (signing.test.ts holds them equal)
 * but hashes in JavaScript (fast-sha256).
 */
export function signatureHeader(secrets: readonly string[], webhookId: string, at: Date, body: string): string {
  const signed = `${webhookId}.${Math.floor(at.getTime() / 1000)}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`).join(' ');
}
