/**
 * Bad input at the gateway answers 400 problem+json: on its own routes (sign-up, profile) and
 * before proxying (a path that does not percent-decode never reaches a service).
 */
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, signUp, uniqueEmail, type SignedInUser, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

const ORIGIN = 'http://shop.example';

/** The headers of an answer that any gateway problem has alike (not those of its date, body and request id). */
const sharedHeadersOf = (res: request.Response) => {
  const { date: _date, 'content-length': _length, etag: _etag, 'x-request-id': _id, connection: _connection, 'keep-alive': _keepAlive, ...shared } = res.headers as Record<string, string>;
  return shared;
};

describe('bad input at the gateway', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let upstream: RunningServer;
  let upstreamCalls = 0;
  let customer: SignedInUser;

  beforeAll(async () => {
    world = await createTestWorld();
    upstream = await createService({
      name: 'checkout',
      log: silentLog,
      identitySecret: TEST_IDENTITY_SECRET,
      publicPaths: ['/catalog/*'],
      routes: (router) => {
        router.all('/{*rest}', (_req, res) => {
          upstreamCalls += 1;
          res.json({ reached: true });
        });
      },
    }).listen(0);
    gateway = await world.start({ CHECKOUT_URL: upstream.url, CORS_ORIGINS: ORIGIN });
    customer = await signUp(gateway.url, uniqueEmail('bad-input'));
  });
  afterAll(async () => {
    await world.close();
    await upstream.close();
  });

  const expectProblem = (res: request.Response, code: string) => {
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code });
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  };

  test('a path that does not percent-decode is refused before the proxy', async () => {
    upstreamCalls = 0;
    expectProblem(await request(gateway.url).get('/api/v1/catalog/products/%E0%A4%A'), 'malformed_url');
    expectProblem(await request(gateway.url).get('/api/v1/account/addresses/%').set('Cookie', customer.cookie), 'malformed_url');
    expectProblem(await request(gateway.url).get('/api/v1/catalog/products?q=a%00'), 'malformed_url');
    expect(upstreamCalls).toBe(0);
    // and a good one still goes through
    await request(gateway.url).get('/api/v1/catalog/products/abc').expect(200, { reached: true });
    expect(upstreamCalls).toBe(1);
  });

  test("a malformed URL's 400 carries the security and CORS headers of every other gateway problem", async () => {
    // problems answered by express (no route: 404) and by the raw proxied path (no session: 401)
    const notFound = await request(gateway.url).get('/api/v1/nothing').set('Origin', ORIGIN).expect(404);
    const unauthenticated = await request(gateway.url).get('/api/v1/account/addresses').set('Origin', ORIGIN).expect(401);
    expect(sharedHeadersOf(unauthenticated)).toEqual(sharedHeadersOf(notFound));
    expect(notFound.headers).toMatchObject({ 'access-control-allow-origin': ORIGIN, 'x-content-type-options': 'nosniff' });
    for (const path of ['/api/v1/catalog/products/%E0%A4%A', '/api/v1/account/addresses/a%00', '/api/v1/catalog/products?q=a%00', '/%E0%A4%A', '/console/%00']) {
      const res = await request(gateway.url).get(path).set('Origin', ORIGIN);
      expectProblem(res, 'malformed_url');
      expect({ path, headers: sharedHeadersOf(res) }).toEqual({ path, headers: sharedHeadersOf(notFound) });
    }
    // another origin gets no CORS headers there either, as on any other problem
    const other = await request(gateway.url).get('/api/v1/catalog/products/%E0%A4%A').set('Origin', 'http://evil.example').expect(400);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  });

  test('sign-up with a NUL in the name, or a lone surrogate: 400, no account', async () => {
    for (const [fullName, code] of [
      ['Siti\u0000', 'nul_character'],
      ['Siti\ud800', 'malformed_unicode'],
    ]) {
      const email = uniqueEmail('nul');
      const res = await request(gateway.url)
        .post('/api/v1/auth/sign-up')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ email, password: 'correct horse battery', fullName }));
      expectProblem(res, code);
      expect(await gateway.prisma.user.count({ where: { email } })).toBe(0);
    }
  });

  test('a profile change nested 5,000 levels deep, or with a NUL: 400', async () => {
    const deep = '{"fullName":' + '['.repeat(5000) + ']'.repeat(5000) + '}';
    expectProblem(await request(gateway.url).patch('/api/v1/account/profile').set('Cookie', customer.cookie).set('content-type', 'application/json').send(deep), 'json_too_deep');
    expectProblem(await request(gateway.url).patch('/api/v1/account/profile').set('Cookie', customer.cookie).send({ fullName: 'a\u0000b' }), 'nul_character');
  });
});
