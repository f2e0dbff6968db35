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

function signature(secret: string, userId: string, role: string, email: string, requestId: string, ts: string): string {
  return createHmac('sha256', secret).update(`${userId}.${role}.${email}.${requestId}.${ts}`).digest('hex');
}

/** The headers that carry an identity (or none, for anonymous requests to public paths). */
export function signIdentityHeaders(
  secret: string,
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
    [IDENTITY_HEADERS.sig]: signature(secret, userId, role, email, requestId, ts),
  };
}

export type IdentityCheck =
  | { ok: true; identity: Identity | null; requestId: string }
  | { ok: false; reason: 'missing' | 'forged' | 'expired' };

/**
 * Verifies the gateway's signed headers. `identity` is null for a correctly signed anonymous
 * request (a public path such as the payment notification).
 */
export function verifyIdentityHeaders(
  secret: string,
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
  const expected = Buffer.from(signature(secret, userId, role, email, requestId, ts), 'hex');
  const given = Buffer.from(sig, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const age = now - Number(ts);
  if (!Number.isFinite(age) || age > IDENTITY_MAX_AGE_MS || age < -IDENTITY_MAX_AGE_MS) return { ok: false, reason: 'expired' };
  if (!userId) return { ok: true, identity: null, requestId };
  const parsedRole = roleSchema.safeParse(role);
  if (!parsedRole.success) return { ok: false, reason: 'forged' };
  return { ok: true, identity: { userId, role: parsedRole.data, email }, requestId };
}
