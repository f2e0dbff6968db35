import { Webhook } from 'standardwebhooks';

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * for each secret, space-separated (two during a rotation's overlap), by the reference library.
 */
export function signatureHeader(secrets: readonly string[], webhookId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(webhookId, at, body)).join(' ');
}
