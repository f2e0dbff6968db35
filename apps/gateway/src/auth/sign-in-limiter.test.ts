import { uniqueNamespace, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import { SignInLimiter, backoffPauseS } from './sign-in-limiter';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function limiter(redis?: string, perEmailIp = 2, perIp = 3, perEmail = 100, backoffBaseS = 20): SignInLimiter {
  return SignInLimiter.create(
    {
      REDIS_URL: redis,
      SIGN_IN_LIMIT_PER_EMAIL_IP: perEmailIp,
      SIGN_IN_LIMIT_PER_IP: perIp,
      SIGN_IN_LIMIT_PER_EMAIL: perEmail,
      SIGN_IN_BACKOFF_BASE_S: backoffBaseS,
      SIGN_IN_BACKOFF_MAX_S: 50,
      SIGN_IN_LIMIT_WINDOW_S: 60,
      NATS_NAMESPACE: uniqueNamespace('lim'),
    },
    silentLog,
  );
}

/** One sign-in attempt that fails (the wrong password), as signIn records it. */
async function fail(limits: SignInLimiter, ip: string, email: string) {
  const decision = await limits.attempt(ip, email);
  if (decision.ok) await limits.failed(ip, email);
  return decision;
}

describe('backoffPauseS', () => {
  const config = { SIGN_IN_LIMIT_PER_EMAIL: 3, SIGN_IN_BACKOFF_BASE_S: 2, SIGN_IN_BACKOFF_MAX_S: 15 };
  test('no pause up to the threshold, then BASE doubling, at most MAX', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((failures) => backoffPauseS(failures, config))).toEqual([0, 0, 0, 2, 4, 8, 15, 15]);
  });
});

describe.each([
  ['memory', undefined],
  ['redis', TEST_REDIS_URL],
])('SignInLimiter (%s)', (_store, redis) => {
  it('counts failures per e-mail from one IP, and success gives its attempt back', async () => {
    const limits = limiter(redis);
    expect(await limits.ready()).toBe(true);
    try {
      expect(await limits.attempt('10.0.0.1', 'a@example.test')).toEqual({ ok: true });
      await limits.succeeded('10.0.0.1', 'a@example.test');
      expect((await fail(limits, '10.0.0.1', 'a@example.test')).ok).toBe(true);
      expect((await fail(limits, '10.0.0.1', 'a@example.test')).ok).toBe(true);
      const refused = await limits.attempt('10.0.0.1', 'a@example.test');
      expect(refused).toEqual({ ok: false, retryAfterS: expect.any(Number) });
      if (!refused.ok) expect(refused.retryAfterS).toBeGreaterThan(0);
      // another e-mail from that IP is fine
      expect(await limits.attempt('10.0.0.1', 'b@example.test')).toEqual({ ok: true });
    } finally {
      await limits.close();
    }
  });

  it('a stranger who spent an e-mail from their IP does not lock its owner out: another IP still signs in', async () => {
    const limits = limiter(redis);
    expect(await limits.ready()).toBe(true);
    try {
      await fail(limits, '203.0.113.66', 'owner@example.test');
      await fail(limits, '203.0.113.66', 'owner@example.test');
      expect((await limits.attempt('203.0.113.66', 'owner@example.test')).ok).toBe(false);
      expect(await limits.attempt('198.51.100.7', 'owner@example.test')).toEqual({ ok: true });
      await limits.succeeded('198.51.100.7', 'owner@example.test');
    } finally {
      await limits.close();
    }
  });

  it('past the per-e-mail threshold (across IPs) the e-mail backs off for a while, from every IP', async () => {
    const limits = limiter(redis, 10, 100, 3, 20);
    expect(await limits.ready()).toBe(true);
    try {
      for (const ip of ['10.1.0.1', '10.1.0.2', '10.1.0.3']) expect((await fail(limits, ip, 'guessed@example.test')).ok).toBe(true);
      // the 4th failure is past the threshold of 3: a pause of BASE (20 s) starts
      expect((await fail(limits, '10.1.0.4', 'guessed@example.test')).ok).toBe(true);
      const paused = await limits.attempt('10.1.0.5', 'guessed@example.test');
      expect(paused).toEqual({ ok: false, retryAfterS: expect.any(Number) });
      if (!paused.ok) expect(paused.retryAfterS).toBeGreaterThan(10);
      if (!paused.ok) expect(paused.retryAfterS).toBeLessThanOrEqual(20);
      // other e-mails are not paused
      expect(await limits.attempt('10.1.0.5', 'someone-else@example.test')).toEqual({ ok: true });
    } finally {
      await limits.close();
    }
  });

  it('the backoff counts distinct IPs: one IP failing again and again never pauses the e-mail for others', async () => {
    const limits = limiter(redis, 10, 100, 1, 20);
    expect(await limits.ready()).toBe(true);
    try {
      for (let i = 0; i < 10; i += 1) expect((await fail(limits, '10.2.0.1', 'one-ip@example.test')).ok).toBe(true);
      expect(await limits.attempt('10.2.0.2', 'one-ip@example.test')).toEqual({ ok: true });
      await limits.failed('10.2.0.2', 'one-ip@example.test'); // the 2nd IP is past the threshold of 1: paused
      expect((await limits.attempt('10.2.0.3', 'one-ip@example.test')).ok).toBe(false);
    } finally {
      await limits.close();
    }
  });

  it('three IPs with 10 failures each pause the e-mail, but not on a device that signed in as it before', async () => {
    const limits = limiter(redis, 10, 100, 2, 20);
    expect(await limits.ready()).toBe(true);
    try {
      for (const ip of ['10.3.0.1', '10.3.0.2', '10.3.0.3']) {
        for (let i = 0; i < 10; i += 1) await fail(limits, ip, 'victim@example.test');
      }
      expect((await limits.attempt('10.3.0.9', 'victim@example.test')).ok).toBe(false);
      expect(await limits.attempt('10.3.0.9', 'victim@example.test', { knownDevice: true })).toEqual({ ok: true });
      await limits.succeeded('10.3.0.9', 'victim@example.test');
    } finally {
      await limits.close();
    }
  });

  it('counts failures per IP across e-mails; a refusal by e-mail does not cost the IP', async () => {
    const limits = limiter(redis, 1, 3);
    expect(await limits.ready()).toBe(true);
    try {
      expect((await fail(limits, '10.0.0.9', 'x@example.test')).ok).toBe(true);
      expect((await limits.attempt('10.0.0.9', 'x@example.test')).ok).toBe(false); // e-mail spent, IP refunded
      expect((await fail(limits, '10.0.0.9', 'y@example.test')).ok).toBe(true);
      expect((await fail(limits, '10.0.0.9', 'z@example.test')).ok).toBe(true);
      expect((await limits.attempt('10.0.0.9', 'w@example.test')).ok).toBe(false); // IP spent (3)
    } finally {
      await limits.close();
    }
  });
});

describe('sign-in limits shared through Redis by two gateway instances', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(() => world.close());

  it('failures on one instance count on the other', async () => {
    const env = { REDIS_URL: TEST_REDIS_URL, SIGN_IN_LIMIT_PER_EMAIL_IP: '2' };
    const a = await world.start(env);
    const b = await world.start(env);
    const user = await signUp(a.url, uniqueEmail('shared'), 'right password 1');
    await request(a.url).post('/api/v1/auth/sign-in').send({ email: user.email, password: 'wrong password' }).expect(401);
    await request(b.url).post('/api/v1/auth/sign-in').send({ email: user.email, password: 'wrong password' }).expect(401);
    const limited = await request(a.url).post('/api/v1/auth/sign-in').send({ email: user.email, password: 'right password 1' }).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    await request(b.url).post('/api/v1/auth/sign-in').send({ email: user.email, password: 'right password 1' }).expect(429);
  });
});
