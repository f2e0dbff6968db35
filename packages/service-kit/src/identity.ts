import { createHmac, timingSafeEqual } from 'node:crypto';
import { roleSchema, type Role } from '@pasar/contracts';

/** Headers the gateway forwards; it strips any incoming `x-pasar-*` first (DESIGN §1). */
export const IDENTITY_HEADERS = {
  userId: 'x-pasar-user-id',
  role: 'x-pasar-role',
  email: 'x-pasar-email',
  requestId: 'x-pasar-request-id',
  ts: 'x-pasar-ts',
  sig: 'x-pasar-sig',
} as const;

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

/** The signed fields of one request, in a fixed order. */
export interface SignedFields {
  method: string;
  path: string;
  userId: string;
  role: string;
  email: string;
  requestId: string;
  ts: string;
}

/**
 * HMAC-SHA256 (hex) over `method.path.userId.role.email.requestId.ts`, each field JSON-encoded
 * (a JSON array), so that no field can borrow another's dots.
 */
export function identitySignature(secret: string, f: SignedFields): string {
  const message = JSON.stringify([f.method.toUpperCase(), f.path, f.userId, f.role, f.email, f.requestId, f.ts]);
  return createHmac('sha256', secret).update(message).digest('hex');
}

/** The headers that carry an identity (or none, for anonymous requests to public paths) for one request. */
export function signIdentityHeaders(
  secret: string,
  target: SignedTarget,
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
    [IDENTITY_HEADERS.sig]: identitySignature(secret, { method: target.method, path: target.path, userId, role, email, requestId, ts }),
  };
}

export type IdentityCheck =
  | { ok: true; identity: Identity | null; requestId: string }
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
  if (!sig || !ts || !requestId) return { ok: false, reason: 'missing' };
  const userId = get(IDENTITY_HEADERS.userId) ?? '';
  const role = get(IDENTITY_HEADERS.role) ?? '';
  const email = get(IDENTITY_HEADERS.email) ?? '';
  const expected = Buffer.from(identitySignature(secret, { method: target.method, path: target.path, userId, role, email, requestId, ts }), 'hex');
  const given = Buffer.from(sig, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const age = now - Number(ts);
  if (!Number.isFinite(age) || age > IDENTITY_MAX_AGE_MS || age < -IDENTITY_MAX_AGE_MS) return { ok: false, reason: 'expired' };
  if (!userId) return { ok: true, identity: null, requestId };
  const parsedRole = roleSchema.safeParse(role);
  if (!parsedRole.success) return { ok: false, reason: 'forged' };
  return { ok: true, identity: { userId, role: parsedRole.data, email }, requestId };
}

/** What the identity check of a request behind the gateway decided: the caller, or the detail of its 401. */
export type IdentityGate =
  | { ok: true; identity: Identity | null }
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
  return { ok: true, identity: check.identity };
}
