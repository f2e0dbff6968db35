import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { SESSION_COOKIE, clearedCookieOptions, sessionCookieOptions } from './rules';

/** The session cookie's value, if the request carries one. */
export function readSessionToken(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parse(header)[SESSION_COOKIE];
}

export function setSessionCookie(res: Response, production: boolean, token: string, expiresAt: Date, now: Date): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, token, sessionCookieOptions(production, expiresAt, now)));
}

export function clearSessionCookie(res: Response, production: boolean): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', clearedCookieOptions(production)));
}
