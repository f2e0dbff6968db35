import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { SESSION_COOKIE, clearedCookieOptions, sessionCookieOptions } from './rules';

/** The session cookie's value, if the request carries one. */
export function readSessionToken(req: Request): string | undefined {
  return sessionTokenOf(req.headers.cookie);
}

/** The session cookie's value in a Cookie header, if any. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  return parse(cookieHeader)[SESSION_COOKIE];
}

/** The Set-Cookie value of a session cookie. */
export function sessionCookie(production: boolean, token: string, expiresAt: Date, now: Date): string {
  return serialize(SESSION_COOKIE, token, sessionCookieOptions(production, expiresAt, now));
}

export function setSessionCookie(res: Response, production: boolean, token: string, expiresAt: Date, now: Date): void {
  res.append('Set-Cookie', sessionCookie(production, token, expiresAt, now));
}

export function clearSessionCookie(res: Response, production: boolean): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', clearedCookieOptions(production)));
}
