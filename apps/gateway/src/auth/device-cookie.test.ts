/**
 * Failures from other IPs cannot stop an account's owner: the per-e-mail backoff counts distinct
 * IPs and does not pause a browser that signed in as the e-mail before (the device cookie).
 */
import { parseSetCookie } from 'cookie';
import request from 'supertest';
import { TEST_IDENTITY_SECRET } from '@pasar/testkit';
import { createTestWorld, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import { DEVICE_COOKIE, deviceToken, isDeviceOf } from './device-cookie';

const password = 'correct horse battery';

function deviceCookieOf(res: request.Response) {
  const header = res.headers['set-cookie'] as unknown;
  const lines = Array.isArray(header) ? (header as string[]) : typeof header === 'string' ? [header] : [];
  return lines.map((line) => parseSetCookie(line)).find((c) => c.name === DEVICE_COOKIE);
}

describe('the device token', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const token = deviceToken(TEST_IDENTITY_SECRET, 'owner@example.test', now);

  test('proves the e-mail it was issued for, with this secret, for 180 days', () => {
    expect(isDeviceOf(TEST_IDENTITY_SECRET, token, 'owner@example.test', now)).toBe(true);
    expect(isDeviceOf(TEST_IDENTITY_SECRET, token, 'owner@example.test', new Date(now.getTime() + 179 * 86_400_000))).toBe(true);
    expect(isDeviceOf(TEST_IDENTITY_SECRET, token, 'owner@example.test', new Date(now.getTime() + 181 * 86_400_000))).toBe(false);
    expect(isDeviceOf(TEST_IDENTITY_SECRET, token, 'someone-else@example.test', now)).toBe(false);
    expect(isDeviceOf('another secret of 32 characters!', token, 'owner@example.test', now)).toBe(false);
    expect(token).not.toContain('owner');
  });

  test('a changed, truncated or missing token proves nothing', () => {
    const [issued, mac] = token.split('.');
    expect(isDeviceOf(TEST_IDENTITY_SECRET, `${Number(issued) + 1}.${mac}`, 'owner@example.test', now)).toBe(false);
    expect(isDeviceOf(TEST_IDENTITY_SECRET, token.slice(0, -1), 'owner@example.test', now)).toBe(false);
    expect(isDeviceOf(TEST_IDENTITY_SECRET, undefined, 'owner@example.test', now)).toBe(false);
    expect(isDeviceOf(TEST_IDENTITY_SECRET, '', 'owner@example.test', now)).toBe(false);
  });
});

describe('sign-in backoff with the device cookie', () => {
  let world: TestWorld;
  let url: string;
  beforeAll(async () => {
    world = await createTestWorld();
    // backoff after 2 failing IPs, a 20 s first pause: the test never waits for it
    url = (await world.start({ SIGN_IN_LIMIT_PER_EMAIL: '2', SIGN_IN_LIMIT_PER_EMAIL_IP: '10', SIGN_IN_LIMIT_PER_IP: '100', SIGN_IN_BACKOFF_BASE_S: '20' })).url;
  });
  afterAll(() => world.close());

  const signInFrom = (ip: string, email: string, pw: string, cookie?: string) => {
    const req = request(url).post('/api/v1/auth/sign-in').set('X-Forwarded-For', ip); // trusted from loopback
    if (cookie) req.set('Cookie', cookie);
    return req.send({ email, password: pw });
  };

  test('sign-in sets a signed httpOnly device cookie sent only to /api/v1/auth', async () => {
    const owner = await signUp(url, uniqueEmail('device'), password);
    const res = await signInFrom('192.0.2.10', owner.email, password).expect(200);
    const cookie = deviceCookieOf(res);
    expect(cookie).toMatchObject({ httpOnly: true, path: '/api/v1/auth', sameSite: 'lax' });
    expect(cookie?.maxAge).toBe(180 * 24 * 3600);
    expect(isDeviceOf(TEST_IDENTITY_SECRET, cookie?.value, owner.email, new Date())).toBe(true);
  });

  test('three IPs with 10 wrong passwords each pause strangers, never the owner on their device', async () => {
    const owner = await signUp(url, uniqueEmail('victim'), password);
    const signedIn = await signInFrom('192.0.2.20', owner.email, password).expect(200);
    const device = `${DEVICE_COOKIE}=${deviceCookieOf(signedIn)?.value}`;

    for (const ip of ['198.51.100.31', '198.51.100.32', '198.51.100.33']) {
      for (let i = 0; i < 10; i += 1) expect([401, 429]).toContain((await signInFrom(ip, owner.email, 'wrong password')).status);
    }
    // the e-mail is paused for a new IP without the device cookie ...
    const paused = await signInFrom('198.51.100.34', owner.email, password);
    expect([paused.status, paused.body.code]).toEqual([429, 'rate_limited']);
    // ... but the owner's browser signs in, from any IP, and its cookie is renewed
    const again = await signInFrom('192.0.2.21', owner.email, password, device).expect(200);
    expect(deviceCookieOf(again)?.value).toBeDefined();
    // the owner's cookie does not exempt anyone guessing another e-mail
    const other = await signUp(url, uniqueEmail('other'), password);
    for (const ip of ['198.51.100.41', '198.51.100.42', '198.51.100.43']) await signInFrom(ip, other.email, 'wrong password');
    expect((await signInFrom('192.0.2.22', other.email, password, device)).status).toBe(429);
  });
});
