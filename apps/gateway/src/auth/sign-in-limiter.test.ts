import { uniqueNamespace, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import { SignInLimiter } from './sign-in-limiter';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function limiter(redis?: string, perEmail = 2, perIp = 3): SignInLimiter {
  return SignInLimiter.create(
    {
      REDIS_URL: redis,
      SIGN_IN_LIMIT_PER_EMAIL: perEmail,
      SIGN_IN_LIMIT_PER_IP: perIp,
      SIGN_IN_LIMIT_WINDOW_S: 60,
      NATS_NAMESPACE: uniqueNamespace('lim'),
    },
    silentLog,
  );
}

describe.each([
  ['memory', undefined],
  ['redis', TEST_REDIS_URL],
])('SignInLimiter (%s)', (_store, redis) => {
  it('counts failures per e-mail, and success gives its attempt back', async () => {
    const limits = limiter(redis);
    expect(await limits.ready()).toBe(true);
    try {
      expect(await limits.attempt('10.0.0.1', 'a@example.test')).toEqual({ ok: true });
      await limits.succeeded('10.0.0.1', 'a@example.test');
      expect(await limits.attempt('10.0.0.1', 'a@example.test')).toEqual({ ok: true }); // failed
      expect(await limits.attempt('10.0.0.2', 'a@example.test')).toEqual({ ok: true }); // failed
      const refused = await limits.attempt('10.0.0.3', 'a@example.test');
      expect(refused).toEqual({ ok: false, retryAfterS: expect.any(Number) });
      if (!refused.ok) expect(refused.retryAfterS).toBeGreaterThan(0);
      // another e-mail is fine
      expect(await limits.attempt('10.0.0.3', 'b@example.test')).toEqual({ ok: true });
    } finally {
      await limits.close();
    }
  });

  it('counts failures per IP across e-mails; a refusal by e-mail does not cost the IP', async () => {
    const limits = limiter(redis, 1, 3);
    expect(await limits.ready()).toBe(true);
    try {
      expect((await limits.attempt('10.0.0.9', 'x@example.test')).ok).toBe(true);
      expect((await limits.attempt('10.0.0.9', 'x@example.test')).ok).toBe(false); // e-mail spent, IP refunded
      expect((await limits.attempt('10.0.0.9', 'y@example.test')).ok).toBe(true);
      expect((await limits.attempt('10.0.0.9', 'z@example.test')).ok).toBe(true);
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
    const env = { REDIS_URL: TEST_REDIS_URL, SIGN_IN_LIMIT_PER_EMAIL: '2' };
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
