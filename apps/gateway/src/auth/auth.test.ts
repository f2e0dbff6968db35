import { notifyEmailRequested, identityUserUpserted } from '@pasar/contracts';
import { waitFor } from '@pasar/testkit';
import request from 'supertest';
import { collectEvents, createTestWorld, sessionCookieOf, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';
import { SESSION_COOKIE, hashSessionToken } from './rules';

const DAY = 24 * 60 * 60 * 1000;

describe('auth', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let url: string;

  beforeAll(async () => {
    world = await createTestWorld();
    gateway = await world.start({ SIGN_IN_LIMIT_PER_EMAIL_IP: '3', SIGN_IN_LIMIT_PER_IP: '5' });
    url = gateway.url;
  });
  afterAll(() => world.close());

  describe('sign-up', () => {
    it('creates a customer, signs them in with a cookie and answers 201 {user}', async () => {
      const email = uniqueEmail('new');
      const res = await request(url)
        .post('/api/v1/auth/sign-up')
        .send({ email: email.toUpperCase(), password: 'correct horse battery', fullName: '  Siti Aminah ', phone: '+60123456789' })
        .expect(201);
      expect(res.headers.location).toBe('/api/v1/auth/session');
      expect(res.body).toEqual({
        user: { id: expect.any(String), email, fullName: 'Siti Aminah', role: 'customer', mustChangePassword: false },
      });

      const cookie = sessionCookieOf(res);
      expect(cookie).toMatchObject({ name: SESSION_COOKIE, httpOnly: true, sameSite: 'lax', path: '/', maxAge: 7 * 24 * 60 * 60 });
      expect(cookie?.secure).toBeFalsy(); // not production
      expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);

      // stored: argon2id hash, lower-case e-mail, the token only as its SHA-256
      const user = await gateway.prisma.user.findUniqueOrThrow({ where: { email } });
      expect(user.passwordHash).toMatch(/^\$argon2id\$/);
      expect(user.phone).toBe('+60123456789');
      const session = await gateway.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
      expect(session.tokenHash).toBe(hashSessionToken(cookie?.value ?? ''));
      expect(session.expiresAt.getTime() - session.createdAt.getTime()).toBe(7 * DAY);

      const me = await request(url).get('/api/v1/auth/session').set('Cookie', `${SESSION_COOKIE}=${cookie?.value}`).expect(200);
      expect(me.body).toEqual(res.body);
    });

    it('sends the welcome e-mail and the user event through the outbox', async () => {
      const emails = collectEvents(world, notifyEmailRequested);
      const users = collectEvents(world, identityUserUpserted);
      const email = uniqueEmail('welcome');
      const signedUp = await signUp(url, email, 'correct horse battery', 'Welcome Me');
      const mail = await emails.waitFor((m) => m.to === email);
      expect(mail.data).toEqual({ messageId: expect.any(String), to: email, template: 'welcome', vars: { fullName: 'Welcome Me' } });
      expect(mail.source).toBe('gateway');
      const upserted = await users.waitFor((u) => u.userId === signedUp.id);
      expect(upserted.data).toMatchObject({ email, fullName: 'Welcome Me', role: 'customer', phone: null });
      await emails.consumer.stop();
      await users.consumer.stop();
      // the relay marks a batch once its acks are in: the consumer may have the event a moment before
      const rows = await waitFor(async () => {
        const found = await gateway.prisma.outbox.findMany({ where: { payload: { path: ['data', 'to'], equals: email } } });
        return found.every((row) => row.publishedAt !== null) && found;
      });
      expect(rows).toHaveLength(1);
    });

    it('answers 409 email_taken for an e-mail in use (any case)', async () => {
      const email = uniqueEmail('dup');
      await signUp(url, email);
      const res = await request(url)
        .post('/api/v1/auth/sign-up')
        .send({ email: email.toUpperCase(), password: 'another password', fullName: 'Someone Else' })
        .expect(409);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 409, code: 'email_taken' });
      expect(sessionCookieOf(res)).toBeUndefined();
      expect(await gateway.prisma.user.count({ where: { email } })).toBe(1);
    });

    it('answers 400 validation_failed with the zod issues', async () => {
      const res = await request(url).post('/api/v1/auth/sign-up').send({ email: 'not-an-email', password: 'short', fullName: '' }).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed', requestId: expect.any(String) });
      const paths = (res.body as { errors: { path: string[] }[] }).errors.map((e) => e.path.join('.'));
      expect(paths).toEqual(expect.arrayContaining(['email', 'password', 'fullName']));
    });

    it('refuses a password over 128 characters', async () => {
      const res = await request(url)
        .post('/api/v1/auth/sign-up')
        .send({ email: uniqueEmail(), password: 'x'.repeat(129), fullName: 'Long' })
        .expect(400);
      expect(res.body.errors[0].path).toEqual(['password']);
    });

    it('wants JSON (415 otherwise) and well-formed JSON (400)', async () => {
      const form = await request(url).post('/api/v1/auth/sign-up').type('form').send('email=a@b.c').expect(415);
      expect(form.body.code).toBe('unsupported_media_type');
      const broken = await request(url).post('/api/v1/auth/sign-up').set('Content-Type', 'application/json').send('{"email":').expect(400);
      expect(broken.body.code).toBe('malformed_json');
    });
  });

  describe('sign-in and sign-out', () => {
    const password = 'correct horse battery';

    it('signs in with the right password (e-mail in any case)', async () => {
      const user = await signUp(url, uniqueEmail('in'), password, 'Sign In');
      const res = await request(url).post('/api/v1/auth/sign-in').send({ email: user.email.toUpperCase(), password }).expect(200);
      expect(res.body.user).toMatchObject({ id: user.id, email: user.email, role: 'customer' });
      const cookie = sessionCookieOf(res);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'lax', path: '/' });
      await request(url).get('/api/v1/auth/session').set('Cookie', `${SESSION_COOKIE}=${cookie?.value}`).expect(200);
    });

    it('answers 401 invalid_credentials for a wrong password and for an unknown e-mail alike', async () => {
      const user = await signUp(url, uniqueEmail('wrong'), password);
      const wrong = await request(url).post('/api/v1/auth/sign-in').send({ email: user.email, password: 'not the password' }).expect(401);
      const unknown = await request(url).post('/api/v1/auth/sign-in').send({ email: uniqueEmail('nobody'), password }).expect(401);
      for (const res of [wrong, unknown]) {
        expect(res.body).toMatchObject({ status: 401, code: 'invalid_credentials', detail: 'wrong e-mail or password' });
        expect(sessionCookieOf(res)).toBeUndefined();
      }
    });

    it('signs out: 204, the cookie is cleared, the session is gone', async () => {
      const user = await signUp(url, uniqueEmail('out'), password);
      await request(url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);
      const res = await request(url).post('/api/v1/auth/sign-out').set('Cookie', user.cookie).expect(204);
      const cleared = sessionCookieOf(res);
      expect(cleared).toMatchObject({ value: '', maxAge: 0, path: '/' });
      const after = await request(url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(401);
      expect(after.body).toMatchObject({ status: 401, code: 'unauthenticated' });
      expect(await gateway.prisma.session.count({ where: { userId: user.id } })).toBe(0);
    });

    it('sign-out without a session is still 204', async () => {
      await request(url).post('/api/v1/auth/sign-out').expect(204);
    });

    it('GET /auth/session is 401 without a cookie, and clears a cookie that names no session', async () => {
      await request(url).get('/api/v1/auth/session').expect(401);
      const res = await request(url).get('/api/v1/auth/session').set('Cookie', `${SESSION_COOKIE}=${'A'.repeat(43)}`).expect(401);
      expect(sessionCookieOf(res)).toMatchObject({ value: '', maxAge: 0 });
      await request(url).get('/api/v1/auth/session').set('Cookie', `${SESSION_COOKIE}=garbage`).expect(401);
    });

    it('an expired session is refused', async () => {
      const user = await signUp(url, uniqueEmail('expired'), password);
      await gateway.prisma.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      gateway.sessionCache.clear();
      await request(url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(401);
    });

    it('slides: a session used more than a day after its last extension gets 7 more days and a fresh cookie', async () => {
      const user = await signUp(url, uniqueEmail('slide'), password);
      const twoDaysAgo = new Date(Date.now() - 2 * DAY);
      await gateway.prisma.session.updateMany({
        where: { userId: user.id },
        data: { lastSeenAt: twoDaysAgo, createdAt: twoDaysAgo, expiresAt: new Date(twoDaysAgo.getTime() + 7 * DAY) },
      });
      gateway.sessionCache.clear();
      const res = await request(url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);
      const cookie = sessionCookieOf(res);
      expect(`${SESSION_COOKIE}=${cookie?.value}`).toBe(user.cookie); // same token
      expect(cookie?.maxAge).toBeGreaterThan(7 * 24 * 60 * 60 - 60);
      const session = await gateway.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
      expect(session.expiresAt.getTime()).toBeGreaterThan(Date.now() + 7 * DAY - 60_000);
      expect(session.lastSeenAt.getTime()).toBeGreaterThan(Date.now() - 60_000);

      // used again the same day: no new cookie, no write
      gateway.sessionCache.clear();
      const again = await request(url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);
      expect(sessionCookieOf(again)).toBeUndefined();
    });
  });

  describe('sign-in rate limits (3 per e-mail from one IP, 5 per IP in this file)', () => {
    const password = 'correct horse battery';

    it('answers 429 with Retry-After after too many failures for one e-mail, then per IP', async () => {
      const ip = '203.0.113.7'; // X-Forwarded-For is trusted from loopback
      const a = await signUp(url, uniqueEmail('limited'), password);
      const b = await signUp(url, uniqueEmail('limited'), password);
      const attempt = (email: string, pw: string) => request(url).post('/api/v1/auth/sign-in').set('X-Forwarded-For', ip).send({ email, password: pw });

      for (let i = 0; i < 3; i += 1) expect((await attempt(a.email, 'wrong password')).status).toBe(401);
      const limited = await attempt(a.email, password);
      expect(limited.status).toBe(429);
      expect(limited.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);

      // a stranger blocked on a's e-mail from their IP does not lock a out: another IP signs in
      await request(url).post('/api/v1/auth/sign-in').set('X-Forwarded-For', '198.51.100.2').send({ email: a.email, password }).expect(200);
      expect((await attempt(a.email, password)).status).toBe(429);

      // successes do not count: b signs in twice on the same IP
      expect((await attempt(b.email, password)).status).toBe(200);
      expect((await attempt(b.email, password)).status).toBe(200);
      // the IP has 3 failures; two more reach its limit of 5
      expect((await attempt(b.email, 'wrong password')).status).toBe(401);
      expect((await attempt(b.email, 'wrong password')).status).toBe(401);
      expect((await attempt(b.email, password)).status).toBe(429);
      // another IP is not affected
      const elsewhere = await request(url).post('/api/v1/auth/sign-in').set('X-Forwarded-For', '198.51.100.1').send({ email: b.email, password });
      expect(elsewhere.status).toBe(200);
    });
  });
});
