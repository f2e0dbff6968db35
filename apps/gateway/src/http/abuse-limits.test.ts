import { freePort } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, uniqueEmail, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';
import { normalisedPath } from './abuse-limits';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITS = {
  RATE_LIMIT_SIGN_UP: '2/1h',
  RATE_LIMIT_PAYMENT_NOTIFY: '2/1h',
  RATE_LIMIT_FAMILY_INVITES: '2/1h',
  RATE_LIMIT_VENDOR_APPLICATIONS: '2/1h',
};

describe('abuse limits per IP in the gateway', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let ipCount = 0;
  /** A fresh client address per test (X-Forwarded-For is trusted from loopback). */
  const nextIp = () => `203.0.113.${++ipCount}`;

  beforeAll(async () => {
    world = await createTestWorld();
    // nothing listens upstream: proxied requests answer 503, which is all these tests need (not 429)
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    gateway = await world.start({ ...LIMITS, CHECKOUT_URL: nowhere, ADMIN_URL: nowhere, VENDOR_URL: nowhere });
  });
  afterAll(() => world.close());

  test('POST /auth/sign-up: the third sign-up from one IP answers 429 problem+json with Retry-After; another IP signs up', async () => {
    const ip = nextIp();
    const signUp = (from: string) =>
      request(gateway.url).post('/api/v1/auth/sign-up').set('X-Forwarded-For', from).send({ email: uniqueEmail('bot'), password: 'correct horse battery', fullName: 'Bot' });
    await signUp(ip).expect(201);
    await signUp(ip).expect(201);
    const limited = await signUp(ip).expect(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
    await signUp(nextIp()).expect(201);
    // other endpoints of that IP are not limited
    await request(gateway.url).get('/api/v1/auth/session').set('X-Forwarded-For', ip).expect(401);
  });

  test.each([
    ['/payments/notify', '/payments/notify/'],
    ['/family/members', '/FAMILY/members'],
    ['/vendor-applications', '/vendor-applications/'],
  ])('POST %s: the third request from one IP (also spelled %s) answers 429; another IP passes', async (path, variant) => {
    const ip = nextIp();
    const post = (from: string, p = path) => request(gateway.url).post(`/api/v1${p}`).set('X-Forwarded-For', from).send({});
    expect((await post(ip)).status).not.toBe(429);
    expect((await post(ip)).status).not.toBe(429);
    const limited = await post(ip, variant).expect(429);
    expect(limited.body).toMatchObject({ code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post(nextIp())).status).not.toBe(429);
    // a GET of the same path is not limited
    expect((await request(gateway.url).get(`/api/v1${path}`).set('X-Forwarded-For', ip)).status).not.toBe(429);
  });

  test('limits are shared by gateway instances through Redis when REDIS_URL is set', async () => {
    const env = { ...LIMITS, REDIS_URL: TEST_REDIS_URL };
    const [a, b] = [await world.start(env), await world.start(env)];
    const ip = nextIp();
    const signUp = (g: GatewayHandle) =>
      request(g.url).post('/api/v1/auth/sign-up').set('X-Forwarded-For', ip).send({ email: uniqueEmail('shared'), password: 'correct horse battery', fullName: 'Shared' });
    await signUp(a).expect(201);
    await signUp(b).expect(201);
    await signUp(a).expect(429);
    await signUp(b).expect(429);
  });
});

describe('normalisedPath', () => {
  test('matches as the router does: case-insensitive, trailing slash ignored', () => {
    expect(normalisedPath('/Payments/Notify/')).toBe('/payments/notify');
    expect(normalisedPath('/')).toBe('/');
  });
});
