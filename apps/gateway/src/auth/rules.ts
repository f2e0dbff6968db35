import { createHash, randomBytes } from 'node:crypto';
import type { SerializeOptions } from 'cookie';

/** DESIGN §7: the session cookie. */
export const SESSION_COOKIE = 'pasar.session_token';
const TOKEN_BYTES = 32;
/** 32 bytes in base64url without padding. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A fresh session token (the cookie value) and the hash that is stored in its place. */
export function newSessionToken(): { token: string; tokenHash: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, tokenHash: hashSessionToken(token) };
}

/** SHA-256 of the token, hex: the only form the database ever sees. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A value that could be one of our tokens; anything else is not worth a database look-up. */
export function isWellFormedToken(value: string | undefined): value is string {
  return value !== undefined && TOKEN_PATTERN.test(value);
}

/** When a session created or extended at `from` ends. */
export function sessionExpiry(from: Date, ttlDays: number): Date {
  return new Date(from.getTime() + ttlDays * DAY_MS);
}

/**
 * Sliding sessions: a session in use is extended, but at most once a day, so a busy session
 * does not cost a write per request.
 */
export function shouldExtendSession(lastExtendedAt: Date, now: Date): boolean {
  return now.getTime() - lastExtendedAt.getTime() > DAY_MS;
}

/** Attributes of the session cookie: HttpOnly, SameSite=Lax, Path=/, Secure in production. */
export function sessionCookieOptions(production: boolean, expiresAt: Date, now: Date): SerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: production,
    maxAge: Math.max(0, Math.round((expiresAt.getTime() - now.getTime()) / 1000)),
    expires: expiresAt,
  };
}

/** Attributes that make the browser drop the cookie. */
export function clearedCookieOptions(production: boolean): SerializeOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: production, maxAge: 0, expires: new Date(0) };
}
