import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse, serialize, type SerializeOptions } from 'cookie';
import type { Request, Response } from 'express';

/**
 * The sign-in device cookie: set on a successful sign-in, it tells a later sign-in for the same
 * e-mail that it comes from a browser that signed in as it before, which the per-e-mail backoff
 * then does not pause (failures from other IPs cannot stop the owner). Value:
 * `<issued at, unix s>.<HMAC-SHA256(key, issued at | e-mail), base64url>`: it names no e-mail and
 * proves nothing without the e-mail it was issued for. httpOnly, sent only to /api/v1/auth.
 */
export const DEVICE_COOKIE = 'pasar_device';
const DEVICE_COOKIE_PATH = '/api/v1/auth';
/** How long a device stays known after its last successful sign-in. */
export const DEVICE_TTL_S = 180 * 24 * 3600;

/** The cookie's key, derived from IDENTITY_SECRET so that it signs nothing else. */
const deviceKey = (secret: string) => createHmac('sha256', secret).update('pasar sign-in device cookie v1').digest();

const mac = (secret: string, issuedAtS: number, email: string) =>
  createHmac('sha256', deviceKey(secret)).update(`${issuedAtS}|${email}`).digest('base64url');

/** A device token for `email` (normalised), issued at `now`. */
export function deviceToken(secret: string, email: string, now: Date): string {
  const issuedAtS = Math.floor(now.getTime() / 1000);
  return `${issuedAtS}.${mac(secret, issuedAtS, email)}`;
}

/** True when `token` was issued by this gateway for `email` within DEVICE_TTL_S of `now`. */
export function isDeviceOf(secret: string, token: string | undefined, email: string, now: Date): boolean {
  const match = token ? /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token) : null;
  if (!match) return false;
  const issuedAtS = Number(match[1]);
  const ageS = now.getTime() / 1000 - issuedAtS;
  if (ageS < -60 || ageS > DEVICE_TTL_S) return false;
  const expected = Buffer.from(mac(secret, issuedAtS, email));
  const given = Buffer.from(match[2]);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The device cookie of the request, if any. */
export function readDeviceToken(req: Request): string | undefined {
  return req.headers.cookie ? parse(req.headers.cookie)[DEVICE_COOKIE] : undefined;
}

export function deviceCookieOptions(production: boolean): SerializeOptions {
  return { httpOnly: true, sameSite: 'lax', path: DEVICE_COOKIE_PATH, secure: production, maxAge: DEVICE_TTL_S };
}

export function setDeviceCookie(res: Response, production: boolean, token: string): void {
  res.append('Set-Cookie', serialize(DEVICE_COOKIE, token, deviceCookieOptions(production)));
}
