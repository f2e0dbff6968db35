import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

/** Pure rules of vendor webhooks: retry schedule, what an answer means, which URLs are safe. */

/** After a rotation the previous secret signs too, this long. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** Read at most this much of a receiver's answer; keep at most STORED_BODY_BYTES of it. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const STORED_BODY_BYTES = 1024;
/** A Retry-After longer than this is cut to it. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The `webhook-id` of a delivery: the same on every attempt (and for every endpoint of one event). */
export const webhookIdOf = (eventId: string): string => `msg_${eventId.replaceAll('-', '')}`;

/** What one attempt's answer means; `status` null: no HTTP answer (network error, timeout, refused address). */
export type AttemptOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; at: Date }
  /** Not retried: a 4xx (but 408, 429), a 3xx (redirects are not followed), or the schedule is used up. */
  | { kind: 'failed' }
  /** 410 Gone: the receiver asks us to stop; the endpoint is disabled. */
  | { kind: 'gone' };

export interface AttemptAnswer {
  status: number | null;
  retryAfter?: string | null;
}

/**
 * The outcome of attempt number `attempt` (1 = the first): 2xx delivered; 410 gone; 5xx, 408, 429
 * and network errors retried after waits[attempt - 1] (or the Retry-After of a 429/503 when
 * longer); anything else failed at once. Retryable after the last wait: failed.
 */
export function outcomeOf(answer: AttemptAnswer, attempt: number, waits: readonly number[], at: Date): AttemptOutcome {
  const { status } = answer;
  if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'gone' };
  const retryable = status === null || status >= 500 || status === 408 || status === 429;
  if (!retryable) return { kind: 'failed' };
  const wait = waits[attempt - 1];
  if (wait === undefined) return { kind: 'failed' };
  const asked = status === 429 || status === 503 ? retryAfterMs(answer.retryAfter ?? null, at) : null;
  return { kind: 'retry', at: new Date(at.getTime() + Math.max(wait, asked ?? 0)) };
}

/** A Retry-After header (seconds, or an HTTP date) as milliseconds from `at`, at most 24 h; null when absent or unreadable. */
export function retryAfterMs(header: string | null, at: Date): number | null {
  if (!header) return null;
  const text = header.trim();
  const ms = /^\d{1,10}$/.test(text) ? Number(text) * 1000 : Date.parse(text) - at.getTime();
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** Whether an endpoint failing since `failingSince` has failed long enough to be disabled. */
export function failedTooLong(failingSince: Date | null, at: Date, disableAfterMs: number): boolean {
  return failingSince !== null && at.getTime() - failingSince.getTime() >= disableAfterMs;
}

/** The secrets a delivery at `at` is signed with: the current one, and the previous one until its overlap ends. */
export function signingSecrets(endpoint: { secret: string; previousSecret: string | null; previousSecretUntil: Date | null }, at: Date): string[] {
  const previousValid = endpoint.previousSecret !== null && endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > at;
  return previousValid ? [endpoint.secret, endpoint.previousSecret as string] : [endpoint.secret];
}

/** A response body as stored: its first 1 KiB (cut at a character boundary). */
export function storedBody(body: Buffer): string | null {
  if (body.length === 0) return null;
  return body.subarray(0, STORED_BODY_BYTES).toString('utf8').replace(/\uFFFD+$/, '');
}

// ---------------------------------------------------------------- URL safety

/**
 * Addresses a webhook may not reach in production: private, loopback, link-local (cloud metadata
 * 169.254.169.254 and fd00:ec2::254 among them), carrier-grade NAT, multicast, reserved, and IPv6
 * forms of them.
 */
const forbidden = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True when a webhook must not connect to `address` in production. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return forbidden.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4) return forbidden.check(v4, 'ipv4');
  return forbidden.check(address, 'ipv6');
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Production: strict (https only, no private addresses). Development and test: http allowed to loopback only, any address. */
export type UrlPolicy = 'production' | 'local';

export const urlPolicyOf = (nodeEnv: string): UrlPolicy => (nodeEnv === 'production' ? 'production' : 'local');

/** The scheme and host check of an endpoint URL (before any DNS): null when fine, else why not. */
export function urlRefusal(url: URL, policy: UrlPolicy): string | null {
  if (url.username || url.password) return 'the URL must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol !== 'http:') return 'the URL must be https';
  if (policy === 'local' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return policy === 'production' ? 'the URL must be https' : 'the URL must be https (http only to a loopback address in development and test)';
}

/** The addresses a host resolved to, checked: null when every one may be reached, else why not. */
export function addressRefusal(addresses: readonly string[], policy: UrlPolicy): string | null {
  if (addresses.length === 0) return 'the host does not resolve';
  if (policy === 'local') return null;
  const bad = addresses.find(isForbiddenAddress);
  return bad ? `the host resolves to a private, loopback, link-local or metadata address (${bad})` : null;
}
