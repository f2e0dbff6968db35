/**
 * Bad input at the gateway answers 400 problem+json: on its own routes (sign-up, profile) and
 * before proxying (a path that does not percent-decode never reaches a service).
 */
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, signUp, uniqueEmail, type SignedInUser, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

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
    gateway = await world.start({ CHECKOUT_URL: upstream.url });
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
