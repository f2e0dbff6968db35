import { createHash } from 'node:crypto';
import {
  SESSION_COOKIE,
  clearedCookieOptions,
  hashSessionToken,
  isWellFormedToken,
  newSessionToken,
  sessionCookieOptions,
  sessionExpiry,
  shouldExtendSession,
} from './rules';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

describe('session tokens', () => {
  it('are 32 random bytes in base64url, stored as their SHA-256 hex', () => {
    const { token, tokenHash } = newSessionToken();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differ every time', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => newSessionToken().token));
    expect(tokens.size).toBe(50);
  });

  it('hash deterministically', () => {
    expect(hashSessionToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('only well-formed cookie values are looked up', () => {
    expect(isWellFormedToken(newSessionToken().token)).toBe(true);
    expect(isWellFormedToken(undefined)).toBe(false);
    expect(isWellFormedToken('')).toBe(false);
    expect(isWellFormedToken('short')).toBe(false);
    expect(isWellFormedToken(`${'a'.repeat(42)}=`)).toBe(false);
    expect(isWellFormedToken(`${'a'.repeat(42)}+`)).toBe(false);
  });
});

describe('session lifetime', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');

  it('lasts the configured days', () => {
    expect(sessionExpiry(now, 7).toISOString()).toBe('2026-03-08T10:00:00.000Z');
  });

  it('slides at most once a day', () => {
    expect(shouldExtendSession(new Date(now.getTime() - HOUR), now)).toBe(false);
    expect(shouldExtendSession(new Date(now.getTime() - DAY), now)).toBe(false);
    expect(shouldExtendSession(new Date(now.getTime() - DAY - 1), now)).toBe(true);
    expect(shouldExtendSession(new Date(now.getTime() - 6 * DAY), now)).toBe(true);
  });
});

describe('cookie attributes', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  const expiresAt = sessionExpiry(now, 7);

  it('are HttpOnly, SameSite=Lax, Path=/ and last until the session expires', () => {
    expect(SESSION_COOKIE).toBe('pasar.session_token');
    expect(sessionCookieOptions(false, expiresAt, now)).toEqual({
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: false,
      maxAge: 7 * 24 * 60 * 60,
      expires: expiresAt,
    });
  });

  it('are Secure in production', () => {
    expect(sessionCookieOptions(true, expiresAt, now).secure).toBe(true);
    expect(clearedCookieOptions(true).secure).toBe(true);
  });

  it('clear the cookie with Max-Age 0', () => {
    expect(clearedCookieOptions(false)).toMatchObject({ maxAge: 0, path: '/', httpOnly: true, sameSite: 'lax' });
  });

  it('never give a negative Max-Age', () => {
    expect(sessionCookieOptions(false, new Date(now.getTime() - 1000), now).maxAge).toBe(0);
  });
});
