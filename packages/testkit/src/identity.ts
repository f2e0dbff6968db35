import { randomUUID } from 'node:crypto';
import type { Role } from '@pasar/contracts';
import { EMPTY_BODY_SHA256, IDENTITY_HEADERS, bodySha256, identitySignature, signIdentityHeaders, type Identity } from '@pasar/service-kit';

export const TEST_IDENTITY_SECRET = 'test-identity-secret-0123456789abcdef';

export type TestIdentity = { userId?: string; role: Role; email?: string } | null;

/**
 * The signature value `signedHeaders` puts in `x-pasar-sig` until the request is sent. No
 * service accepts it (it is not even hex): the supertest hook (`installSignOnSend`, a jest
 * setup file) replaces it with the real signature over the request's method, path and body.
 */
export const SIGN_ON_SEND_PREFIX = 'testkit-sign-on-send.';

/** What a placeholder stands for: the secret and the fields as signedHeaders made them (a later edit of the headers is not signed). */
interface PendingSignature {
  secret: string;
  userId: string;
  role: string;
  email: string;
  requestId: string;
  ts: string;
}

/** Shared by every copy of this module in one jest sandbox (setup file and test file). */
const pending: Map<string, PendingSignature> = ((globalThis as Record<symbol, unknown>)[Symbol.for('pasar.testkit.pendingSignatures')] ??= new Map<
  string,
  PendingSignature
>()) as Map<string, PendingSignature>;

function fullIdentity(identity: TestIdentity): Identity | null {
  return identity ? { userId: identity.userId ?? randomUUID(), role: identity.role, email: identity.email ?? 'user@example.test' } : null;
}

/**
 * Headers as the gateway would send them for this caller (null = anonymous), for supertest:
 * `request(url).get(path).set(signedHeaders({...}))`. The signature is a placeholder that the
 * sign-on-send hook turns into the real one for the request's method and path when it is sent.
 * For fetch or any other client, use `signFor(method, path, identity)`.
 */
export function signedHeaders(identity: TestIdentity, secret = TEST_IDENTITY_SECRET, requestId: string = randomUUID()): Record<string, string> {
  const headers = signIdentityHeaders(secret, { method: 'GET', path: '/', bodySha256: EMPTY_BODY_SHA256 }, fullIdentity(identity), requestId);
  const key = randomUUID();
  pending.set(key, {
    secret,
    userId: headers[IDENTITY_HEADERS.userId],
    role: headers[IDENTITY_HEADERS.role],
    email: headers[IDENTITY_HEADERS.email],
    requestId: headers[IDENTITY_HEADERS.requestId],
    ts: headers[IDENTITY_HEADERS.ts],
  });
  return { ...headers, [IDENTITY_HEADERS.sig]: `${SIGN_ON_SEND_PREFIX}${key}` };
}

/**
 * Headers signed for exactly this request (method, path with its query string as sent:
 * /api/v1/..., and the body's bytes as sent; none by default).
 */
export function signFor(
  method: string,
  path: string,
  identity: TestIdentity,
  secret = TEST_IDENTITY_SECRET,
  body: string | Uint8Array = '',
): Record<string, string> {
  return signIdentityHeaders(secret, { method, path, bodySha256: bodySha256(body) }, fullIdentity(identity), randomUUID());
}

/** Whether `sig` is a placeholder of signedHeaders (the request still needs signing when sent). */
export function isPlaceholder(sig: unknown): boolean {
  return typeof sig === 'string' && sig.startsWith(SIGN_ON_SEND_PREFIX) && pending.has(sig.slice(SIGN_ON_SEND_PREFIX.length));
}

/**
 * The real identity headers for a placeholder (the signature and the body digest it covers), or
 * undefined when `sig` is not one of ours. `body`: the bytes the request sends.
 */
export function signatureForPlaceholder(sig: unknown, method: string, path: string, body: Uint8Array): Record<string, string> | undefined {
  if (typeof sig !== 'string' || !sig.startsWith(SIGN_ON_SEND_PREFIX)) return undefined;
  const signing = pending.get(sig.slice(SIGN_ON_SEND_PREFIX.length));
  if (!signing) return undefined;
  const { secret, ...fields } = signing;
  const digest = bodySha256(body);
  return {
    [IDENTITY_HEADERS.bodySha256]: digest,
    [IDENTITY_HEADERS.sig]: identitySignature(secret, { method, path, ...fields, bodySha256: digest }),
  };
}
