import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { roleSchema, type Role } from '@pasar/contracts';

/** Headers the gateway forwards; it strips any incoming `x-pasar-*` first (DESIGN §1). */
export const IDENTITY_HEADERS = {
  userId: 'x-pasar-user-id',
  role: 'x-pasar-role',
  email: 'x-pasar-email',
  requestId: 'x-pasar-request-id',
  ts: 'x-pasar-ts',
  /** SHA-256 (hex) of the request body exactly as sent (no content encoding); of no bytes for a request without one. */
  bodySha256: 'x-pasar-body-sha256',
  sig: 'x-pasar-sig',
} as const;

/** SHA-256 (hex) of a body's bytes: what `x-pasar-body-sha256` carries. */
export function bodySha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The digest of a request without a body (no bytes). */
export const EMPTY_BODY_SHA256 = bodySha256('');

/** Whether the bytes a service read are the ones the gateway signed (`signed`: the verified header's digest). */
export function bodyMatchesSignature(signed: string, bytes: Uint8Array): boolean {
  const actual = Buffer.from(bodySha256(bytes), 'hex');
  const expected = Buffer.from(signed, 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The detail of the 401 for a body other than the one the identity signature covers (another, or none). */
export const BODY_NOT_SIGNED = 'the request body is not the one the identity signature covers';

export const IDENTITY_MAX_AGE_MS = 60_000;

export interface Identity {
  userId: string;
  role: Role;
  email: string;
}

/**
 * The request a signature is bound to: its method and its path as the service sees it
 * (express `req.originalUrl`: /api/v1/..., query string included, exactly as sent). A captured
 * header set therefore cannot be replayed against another endpoint, method or query.
 */
export interface SignedTarget {
  method: string;
  path: string;
}

/** What the gateway signs: the target and the SHA-256 of the body it forwards (so a header set cannot carry another body). */
export interface SignedRequest extends SignedTarget {
  bodySha256: string;
}

/** The signed fields of one request, in a fixed order. */
export interface SignedFields {
  method: string;
  path: string;
  userId: string;
  role: string;
  email: string;
  requestId: string;
  ts: string;
  bodySha256: string;
}

/**
 * HMAC-SHA256 (hex) over `method.path.userId.role.email.requestId.ts.bodySha256`, each field
 * JSON-encoded (a JSON array), so that no field can borrow another's dots.
 */
export function identitySignature(secret: string, f: SignedFields): string {
  const message = JSON.stringify([f.method.toUpperCase(), f.path, f.userId, f.role, f.email, f.requestId, f.ts, f.bodySha256]);
  return createHmac('sha256', secret).update(message).digest('hex');
}

/** The headers that carry an identity (or none, for anonymous requests to public paths) for one request. */
export function signIdentityHeaders(
  secret: string,
  target: SignedRequest,
  identity: Identity | null,
  requestId: string,
  now: number = Date.now(),
): Record<string, string> {
  const ts = String(now);
  const userId = identity?.userId ?? '';
  const role = identity?.role ?? '';
  const email = identity?.email ?? '';
  return {
    [IDENTITY_HEADERS.userId]: userId,
    [IDENTITY_HEADERS.role]: role,
    [IDENTITY_HEADERS.email]: email,
    [IDENTITY_HEADERS.requestId]: requestId,
    [IDENTITY_HEADERS.ts]: ts,
    [IDENTITY_HEADERS.bodySha256]: target.bodySha256,
    [IDENTITY_HEADERS.sig]: identitySignature(secret, { method: target.method, path: target.path, userId, role, email, requestId, ts, bodySha256: target.bodySha256 }),
  };
}

export type IdentityCheck =
  /** `bodySha256`: the signed digest the body the service reads must match. */
  | { ok: true; identity: Identity | null; requestId: string; bodySha256: string }
  | { ok: false; reason: 'missing' | 'forged' | 'expired' };

/**
 * Verifies the gateway's signed headers for this request (`target`: req.method and
 * req.originalUrl). `identity` is null for a correctly signed anonymous request (a public path
 * such as the payment notification).
 */
export function verifyIdentityHeaders(
  secret: string,
  target: SignedTarget,
  headers: Record<string, string | string[] | undefined>,
  now: number = Date.now(),
): IdentityCheck {
  const get = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const sig = get(IDENTITY_HEADERS.sig);
  const ts = get(IDENTITY_HEADERS.ts);
  const requestId = get(IDENTITY_HEADERS.requestId);
  const signedBody = get(IDENTITY_HEADERS.bodySha256);
  if (!sig || !ts || !requestId || !signedBody) return { ok: false, reason: 'missing' };
  const userId = get(IDENTITY_HEADERS.userId) ?? '';
  const role = get(IDENTITY_HEADERS.role) ?? '';
  const email = get(IDENTITY_HEADERS.email) ?? '';
  const expected = Buffer.from(
    identitySignature(secret, { method: target.method, path: target.path, userId, role, email, requestId, ts, bodySha256: signedBody }),
    'hex',
  );
  const given = Buffer.from(sig, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const age = now - Number(ts);
  if (!Number.isFinite(age) || age > IDENTITY_MAX_AGE_MS || age < -IDENTITY_MAX_AGE_MS) return { ok: false, reason: 'expired' };
  if (!userId) return { ok: true, identity: null, requestId, bodySha256: signedBody };
  const parsedRole = roleSchema.safeParse(role);
  if (!parsedRole.success) return { ok: false, reason: 'forged' };
  return { ok: true, identity: { userId, role: parsedRole.data, email }, requestId, bodySha256: signedBody };
}

/** What the identity check of a request behind the gateway decided: the caller, or the detail of its 401. */
export type IdentityGate =
  /** `bodySha256`: the signed digest of the body (checked against the bytes read, BODY_NOT_SIGNED otherwise). */
  | { ok: true; identity: Identity | null; bodySha256: string }
  /** `reason` when the signature itself failed (logged as a warning); none for an anonymous call to a private path. */
  | { ok: false; detail: string; reason?: Extract<IdentityCheck, { ok: false }>['reason'] };

/** The warning a request with a missing, forged or expired signature is logged with. */
export const SIGNATURE_REJECTED = 'rejected request without a valid gateway signature';

/**
 * The identity check of every /api/v1 request of a service (the express pipeline's and the lean
 * path's): the gateway's signature over `target`, and a signed-in caller unless the path is public.
 */
export function gateIdentity(secret: string, target: SignedTarget, headers: Record<string, string | string[] | undefined>, isPublicPath: () => boolean): IdentityGate {
  const check = verifyIdentityHeaders(secret, target, headers);
  if (!check.ok) return { ok: false, detail: 'missing or invalid identity signature', reason: check.reason };
  if (!check.identity && !isPublicPath()) return { ok: false, detail: 'sign in first' };
  return { ok: true, identity: check.identity, bodySha256: check.bodySha256 };
}
