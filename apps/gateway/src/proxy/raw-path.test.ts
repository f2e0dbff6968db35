import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, sessionCookieOf, signUp, uniqueEmail, type SignedInUser, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';
import { SESSION_COOKIE } from '../auth/rules';
import { strictSecurityHeaders } from '../http/security';
import type { UpstreamProxy } from './proxy';
import { rawProxyPath, rawRouteOf, type RawPathDeps } from './raw-path';
import { ROUTE_TABLE } from './route-table';
import { livePathOf } from '../live/rules';
import { compileRouteTable } from './rules';

const compiled = compileRouteTable(ROUTE_TABLE);
const limited = [{ method: 'POST', path: '/family/members' }];
const servedHere = (path: string) => livePathOf(path) !== undefined;
const DAY = 24 * 60 * 60 * 1000;

describe('rawRouteOf: which requests skip express', () => {
  test.each([
    ['GET', '/api/v1/account/addresses', 'checkout'],
    ['GET', '/api/v1/account/addresses?page=2&token=x', 'checkout'],
    ['POST', '/api/v1/checkout/submit', 'checkout'],
    ['GET', '/api/v1/vendor/shipments/1', 'vendor'],
    ['GET', '/api/v1/vendor/products', 'checkout'],
    ['DELETE', '/api/v1/admin/b2b/x', 'b2b'],
    ['GET', '/api/v1/family/members', 'checkout'],
  ])('%s %s goes to %s', (method, url, to) => {
    expect(rawRouteOf(method, url, compiled, limited, servedHere)?.to).toBe(to);
  });

  test.each([
    ['GET', '/api/v1/auth/session', "the gateway's own route"],
    ['GET', '/api/v1/account/profile', "the gateway's own route"],
    ['GET', '/api/v1/vendor/shipments/events', "the gateway's live stream, under a proxied prefix"],
    ['GET', '/api/v1/account/orders/6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69/events', "the gateway's live stream, under a proxied prefix"],
    ['GET', '/api/v1/nothing', 'no route (express answers 404)'],
    ['GET', '/api/v1/catalog/../admin/vouchers', 'not a plain path'],
    ['GET', '/api/v1/catalog//products', 'not a plain path'],
    ['GET', '/api/v1/catalog/products/%E0%A4%A', 'malformed (express answers 400)'],
    ['GET', '/api/v1/catalog/products?q=a%00', 'a NUL (express answers 400)'],
    ['GET', '/API/v1/catalog/products', 'not the plain prefix'],
    ['GET', 'http://evil.example/api/v1/catalog/products', 'absolute form'],
    ['GET', '/api/v1/catalog/products#x', 'a fragment'],
    ['OPTIONS', '/api/v1/checkout/submit', 'a CORS preflight'],
    ['POST', '/api/v1/family/members', 'rate limited'],
    ['POST', '/api/v1/family/members/', 'rate limited (as the router matches it)'],
  ])('%s %s stays with express: %s', (method, url) => {
    expect(rawRouteOf(method, url, compiled, limited, servedHere)).toBeUndefined();
  });
});

describe('rawProxyPath: an error nobody expected', () => {
  test('answers 500 internal_error problem+json (as express did) and keeps the server up', async () => {
    const proxy: UpstreamProxy = {
      middleware: (_req, _res, next) => next(),
      forward: () => {
        throw new Error('a bug in the forward');
      },
      instanceOf: () => 'http://127.0.0.1:9',
      close: () => undefined,
    };
    const raw = rawProxyPath({ compiled, limited: [], servedHere, corsOrigins: [], session: {} as RawPathDeps['session'], proxy, log: silentLog })({ track: () => undefined });
    const server = createServer((req, res) => {
      if (!raw(req, res)) res.end('express');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await request(url).get('/api/v1/catalog/products').set('x-request-id', 'boom-1').expect(500);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.body).toMatchObject({ status: 500, code: 'internal_error', requestId: 'boom-1' });
      await request(url).get('/api/v1/auth/session').expect(200, 'express');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

/** Every line the gateway logs, parsed. */
class CapturedLog extends Writable {
  lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

describe('the proxied path answers as express did', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let checkout: RunningServer;
  let customer: SignedInUser;
  const log = new CapturedLog();

  beforeAll(async () => {
    world = await createTestWorld();
    checkout = await createService({
      name: 'checkout',
      log: silentLog,
      identitySecret: TEST_IDENTITY_SECRET,
      routes: (router) => {
        router.get('/account/addresses', (req, res) => void res.json({ identity: req.identity }));
      },
    }).listen(0);
    gateway = await world.start({ CHECKOUT_URL: checkout.url, CORS_ORIGINS: 'http://shop.example' }, { log: createLogger('gateway', 'info', log) });
    customer = await signUp(gateway.url, uniqueEmail('raw'));
  });
  afterAll(async () => {
    await world.close();
    await checkout.close();
  });

  /** The headers the gateway itself adds (the upstream's own, like content-type, differ by nature). */
  const GATEWAY_OWN = [...strictSecurityHeaders().map(([name]) => name.toLowerCase()), 'access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers', 'vary', 'x-powered-by'];
  const gatewayHeaders = (res: request.Response) => Object.fromEntries(GATEWAY_OWN.filter((name) => name in res.headers).map((name) => [name, res.headers[name]]));

  test.each([
    ['no Origin', undefined],
    ['a configured Origin', 'http://shop.example'],
    ['another Origin', 'http://evil.example'],
  ])("a proxied answer carries the security and CORS headers of an own route's answer (%s)", async (_case, origin) => {
    const withOrigin = (req: request.Test) => (origin ? req.set('Origin', origin) : req);
    const own = await withOrigin(request(gateway.url).get('/api/v1/auth/session').set('Cookie', customer.cookie)).expect(200);
    const proxied = await withOrigin(request(gateway.url).get('/api/v1/account/addresses').set('Cookie', customer.cookie)).expect(200);
    expect(proxied.body).toEqual({ identity: { userId: customer.id, role: 'customer', email: customer.email } });
    expect(gatewayHeaders(proxied)).toEqual(gatewayHeaders(own));
    expect(Object.keys(gatewayHeaders(own)).length).toBeGreaterThanOrEqual(origin === 'http://shop.example' ? 16 : 12);
    expect(proxied.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('a refusal at the gate is the same answer as an own route gives (headers and body)', async () => {
    const own = await request(gateway.url).get('/api/v1/account/profile').set('x-request-id', 'same-id').set('Origin', 'http://shop.example').expect(401);
    const proxied = await request(gateway.url).get('/api/v1/account/addresses').set('x-request-id', 'same-id').set('Origin', 'http://shop.example').expect(401);
    const comparable = (res: request.Response) => {
      const { date: _date, ...headers } = res.headers;
      return { headers, body: res.text };
    };
    expect(comparable(proxied)).toEqual(comparable(own));
    expect(proxied.body).toMatchObject({ status: 401, code: 'unauthenticated', requestId: 'same-id' });
  });

  test('the caller request id is kept and forwarded; the request is logged with its secret query values redacted', async () => {
    log.lines.length = 0;
    const res = await request(gateway.url).get('/api/v1/account/addresses?token=secret-value').set('Cookie', customer.cookie).set('x-request-id', 'raw-req-1').expect(200);
    expect(res.headers['x-request-id']).toBe('raw-req-1');
    for (let i = 0; i < 100 && !log.lines.some((l) => l.reqId === 'raw-req-1'); i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(log.lines.filter((l) => l.reqId === 'raw-req-1')).toEqual([
      expect.objectContaining({ level: 30, msg: 'request completed', req: expect.objectContaining({ method: 'GET', url: '/api/v1/account/addresses?token=[Redacted]' }), res: { statusCode: 200 } }),
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('secret-value');
    expect(JSON.stringify(log.lines)).not.toContain(customer.cookie.split('=')[1]);
  });

  test('a session that slides on a proxied request gets its fresh cookie, as on an own route', async () => {
    const user = await signUp(gateway.url, uniqueEmail('slide'));
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    await gateway.prisma.session.updateMany({ where: { userId: user.id }, data: { lastSeenAt: twoDaysAgo, createdAt: twoDaysAgo, expiresAt: new Date(twoDaysAgo.getTime() + 7 * DAY) } });
    gateway.sessionCache.clear();
    const res = await request(gateway.url).get('/api/v1/account/addresses').set('Cookie', user.cookie).expect(200);
    const cookie = sessionCookieOf(res);
    expect(`${SESSION_COOKIE}=${cookie?.value}`).toBe(user.cookie);
    expect(cookie?.maxAge).toBeGreaterThan(7 * 24 * 60 * 60 - 60);
    expect(cookie?.httpOnly).toBe(true);
    gateway.sessionCache.clear();
    expect(sessionCookieOf(await request(gateway.url).get('/api/v1/account/addresses').set('Cookie', user.cookie).expect(200))).toBeUndefined();
  });

  test('a cookie that names no session is anonymous on the proxied path: 401', async () => {
    const res = await request(gateway.url).get('/api/v1/account/addresses').set('Cookie', `${SESSION_COOKIE}=not-a-token`).expect(401);
    expect(res.body).toMatchObject({ code: 'unauthenticated' });
  });

  test('sessions that cannot be checked answer 503 problem+json on the proxied path, as on an own route', async () => {
    const other = await world.start({ CHECKOUT_URL: checkout.url });
    const user = await signUp(other.url, uniqueEmail('db-down'));
    other.sessionCache.clear();
    await other.prisma.$disconnect(); // the database is gone for this gateway
    const own = await request(other.url).get('/api/v1/auth/session').set('Cookie', user.cookie).set('x-request-id', 'db-down-1').expect(503);
    const proxied = await request(other.url).get('/api/v1/account/addresses').set('Cookie', user.cookie).set('x-request-id', 'db-down-1').expect(503);
    expect(proxied.body).toEqual(own.body);
    expect(proxied.body).toMatchObject({ code: 'service_unavailable', requestId: 'db-down-1' });
    expect(proxied.headers['content-type']).toBe(own.headers['content-type']);
  });
});
