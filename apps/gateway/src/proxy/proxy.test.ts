import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { SETTLEMENT_IMPORT_BODY_LIMIT, SETTLEMENT_IMPORT_PATH, identityCreateUser } from '@pasar/contracts';
import { callRpc } from '@pasar/bus';
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, freePort, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, signIn, signUp, uniqueEmail, type SignedInUser, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

interface Echo {
  service: string;
  method: string;
  path: string;
  identity: { userId: string; role: string; email: string } | null;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A domain service as the real ones are built (service-kit: signed identity check), answering with what it got. */
async function startEchoService(name: string, publicPaths: string[] = [], routeBodyLimits: Record<string, string> = {}): Promise<RunningServer> {
  const service = createService({
    name,
    log: silentLog,
    identitySecret: TEST_IDENTITY_SECRET,
    publicPaths,
    routeBodyLimits,
    formPaths: ['/payments/notify'],
    routes: (router) => {
      router.get('/checkout/slow', async (_req, res) => {
        await new Promise((r) => setTimeout(r, 2500));
        res.json({ late: true });
      });
      // answers with the Vary the query names (none without one)
      router.get('/checkout/varied', (req, res) => {
        if (typeof req.query.vary === 'string') res.set('Vary', req.query.vary);
        res.json({ varied: true });
      });
      router.get('/checkout/created', (_req, res) => {
        res.status(201).location('/api/v1/checkout/created/1').setHeader('x-upstream', 'yes').json({ id: 1 });
      });
      router.all('/{*rest}', (req, res) => {
        const echo: Echo = {
          service: name,
          method: req.method,
          path: req.originalUrl,
          identity: req.identity,
          requestId: req.requestId,
          headers: req.headers,
          body: req.body,
        };
        res.json(echo);
      });
    },
  });
  return service.listen(0);
}

describe('proxy', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  /** The same gateway on its express path (rawPath: false), for what both paths must answer alike. */
  let expressPath: GatewayHandle;
  let checkout: RunningServer;
  let vendor: RunningServer;
  let admin: RunningServer;
  let customer: SignedInUser;
  let vendorUser: SignedInUser;
  let adminUser: SignedInUser;
  const password = 'correct horse battery';

  async function createVendorAndSignIn(): Promise<SignedInUser> {
    const email = uniqueEmail('vendor');
    await callRpc(world.peer.bus, identityCreateUser, { email, fullName: 'A vendor', role: 'vendor', password, mustChangePassword: false });
    return signIn(gateway.url, email, password);
  }
  // administrators come only from the seed (rpc.identity.create_user refuses role admin)
  const adminEmail = uniqueEmail('admin');

  beforeAll(async () => {
    world = await createTestWorld();
    checkout = await startEchoService('checkout', ['/catalog/products', '/payments/notify']);
    vendor = await startEchoService('vendor');
    admin = await startEchoService('admin', [], { [SETTLEMENT_IMPORT_PATH]: SETTLEMENT_IMPORT_BODY_LIMIT });
    const env = {
      CHECKOUT_URL: checkout.url,
      VENDOR_URL: vendor.url,
      ADMIN_URL: admin.url,
      B2B_URL: `http://127.0.0.1:${await freePort()}`, // nothing listens there
      // room for the 3 MB settlement import on a loaded machine (it failed once at 500 ms in a full run)
      UPSTREAM_TIMEOUT_MS: '1000',
      CORS_ORIGINS: 'http://shop.example',
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: password,
    };
    gateway = await world.start(env);
    expressPath = await world.start(env, { rawPath: false });
    customer = await signUp(gateway.url, uniqueEmail('customer'), password);
    vendorUser = await createVendorAndSignIn();
    adminUser = await signIn(gateway.url, adminEmail, password);
  });
  afterAll(async () => {
    await world.close();
    await checkout.close();
    await vendor.close();
    await admin.close();
  });

  it('forwards a signed-in request with its identity, keeping the path and query', async () => {
    const res = await request(gateway.url).get('/api/v1/account/addresses?page=2').set('Cookie', customer.cookie).expect(200);
    const echo = res.body as Echo;
    expect(echo).toMatchObject({
      service: 'checkout',
      method: 'GET',
      path: '/api/v1/account/addresses?page=2',
      identity: { userId: customer.id, role: 'customer', email: customer.email },
    });
    // the request id is the gateway's, forwarded and signed
    expect(echo.requestId).toBe(res.headers['x-request-id']);
    expect(echo.headers['x-request-id']).toBe(res.headers['x-request-id']);
    // the session cookie stays at the gateway
    expect(echo.headers.cookie).toBeUndefined();
  });

  it('signs for the method and path it forwards: the captured headers replayed elsewhere answer 401', async () => {
    const res = await request(gateway.url).get('/api/v1/account/addresses?page=2').set('Cookie', customer.cookie).expect(200);
    const captured = Object.fromEntries(Object.entries((res.body as Echo).headers).filter(([name]) => name.startsWith('x-pasar-'))) as Record<string, string>;
    // the same request again, straight to the service, is accepted (within its 60 s)
    await request(checkout.url).get('/api/v1/account/addresses?page=2').set(captured).expect(200);
    await request(checkout.url).get('/api/v1/account/profile').set(captured).expect(401);
    await request(checkout.url).get('/api/v1/account/addresses?page=3').set(captured).expect(401);
    await request(checkout.url).delete('/api/v1/account/addresses?page=2').set(captured).expect(401);
    await request(admin.url).get('/api/v1/account/addresses?page=2').set(captured).expect(200); // same path and method: the secret is shared
  });

  it('signs the body it forwards: the captured headers replayed with another body, or none, answer 401', async () => {
    const body = { addressId: 'a', items: [{ productId: 'p', quantity: 2 }] };
    const res = await request(gateway.url).post('/api/v1/checkout/submit').set('Cookie', customer.cookie).send(body).expect(200);
    const echo = res.body as Echo;
    const sent = JSON.stringify(body);
    expect(echo.headers['x-pasar-body-sha256']).toBe(createHash('sha256').update(sent).digest('hex'));
    const captured = Object.fromEntries(Object.entries(echo.headers).filter(([name]) => name.startsWith('x-pasar-'))) as Record<string, string>;
    const replay = (other: string | undefined) => {
      const req = request(checkout.url).post('/api/v1/checkout/submit').set(captured).set('content-type', 'application/json');
      return other === undefined ? req : req.send(other);
    };
    expect((await replay(JSON.stringify({ ...body, addressId: 'b' })).expect(401)).body).toMatchObject({ code: 'unauthenticated' });
    await replay(undefined).expect(401);
    await replay('').expect(401);
    await replay(sent).expect(200); // the very bytes signed (within the 60 s)
  });

  it('a GET is signed without a body: its headers cannot carry one', async () => {
    const res = await request(gateway.url).get('/api/v1/checkout/pending-order').set('Cookie', customer.cookie).expect(200);
    const captured = Object.fromEntries(Object.entries((res.body as Echo).headers).filter(([name]) => name.startsWith('x-pasar-'))) as Record<string, string>;
    expect(captured['x-pasar-body-sha256']).toBe(createHash('sha256').update('').digest('hex'));
    // the service takes no body on a GET at all, signed or not
    const replayed = await request(checkout.url).get('/api/v1/checkout/pending-order').set(captured).set('content-type', 'application/json').send('{"x":1}').expect(400);
    expect(replayed.body).toMatchObject({ code: 'body_not_allowed' });
  });

  it('a body over 1 MB → 413 (the settlement import takes up to its own limit); a Content-Encoding → 415', async () => {
    const big = { note: 'x'.repeat(1024 * 1024) };
    const over = await request(gateway.url).post('/api/v1/checkout/submit').set('Cookie', customer.cookie).send(big).expect(413);
    expect(over.body).toMatchObject({ status: 413, code: 'payload_too_large', requestId: over.headers['x-request-id'] });
    const csvText = 'x'.repeat(3 * 1024 * 1024);
    const imported = await request(gateway.url).post(`/api/v1${SETTLEMENT_IMPORT_PATH}`).set('Cookie', adminUser.cookie).send({ csvText }).expect(200);
    expect(((imported.body as Echo).body as { csvText: string }).csvText).toHaveLength(csvText.length);
    // only that route: the same size elsewhere on admin is refused
    await request(gateway.url).post('/api/v1/admin/shipping/other').set('Cookie', adminUser.cookie).send({ csvText }).expect(413);
    await request(gateway.url).post(`/api/v1${SETTLEMENT_IMPORT_PATH}`).set('Cookie', adminUser.cookie).send({ csvText: 'x'.repeat(22 * 1024 * 1024) }).expect(413);

    const zipped = gzipSync(JSON.stringify({ addressId: 'a' }));
    const encoded = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${gateway.url}/api/v1/checkout/submit`,
        { method: 'POST', headers: { cookie: customer.cookie, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': zipped.length } },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.end(zipped);
    });
    expect([encoded.status, JSON.parse(encoded.body).code]).toEqual([415, 'unsupported_content_encoding']);
  });

  it('forwards a chunked body whole, with its length', async () => {
    const answer = await new Promise<Echo>((resolve, reject) => {
      const url = new URL(`${gateway.url}/api/v1/checkout/submit`);
      const req = httpRequest(url, { method: 'POST', headers: { cookie: customer.cookie, 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Echo));
      });
      req.on('error', reject);
      req.write('{"addressId":');
      req.end('"chunked"}');
    });
    expect(answer.body).toEqual({ addressId: 'chunked' });
    expect(answer.headers['content-length']).toBe(String('{"addressId":"chunked"}'.length));
    expect(answer.headers['transfer-encoding']).toBeUndefined();
  });

  it('strips forged x-pasar-* headers: only the gateway speaks for the caller', async () => {
    const forged = {
      'x-pasar-user-id': '00000000-0000-4000-8000-000000000000',
      'x-pasar-role': 'admin',
      'x-pasar-email': 'evil@example.test',
      'x-pasar-sig': 'f'.repeat(64),
      'x-pasar-ts': String(Date.now()),
      'x-pasar-extra': 'nope',
    };
    const asCustomer = await request(gateway.url).get('/api/v1/checkout/pending-order').set(forged).set('Cookie', customer.cookie).expect(200);
    expect((asCustomer.body as Echo).identity).toEqual({ userId: customer.id, role: 'customer', email: customer.email });
    expect((asCustomer.body as Echo).headers['x-pasar-extra']).toBeUndefined();

    const anonymous = await request(gateway.url).get('/api/v1/catalog/products').set(forged).expect(200);
    expect((anonymous.body as Echo).identity).toBeNull();
  });

  it('lets anonymous callers reach public paths (signed as anonymous)', async () => {
    const res = await request(gateway.url).get('/api/v1/catalog/products?q=batik').expect(200);
    expect(res.body).toMatchObject({ service: 'checkout', path: '/api/v1/catalog/products?q=batik', identity: null });
  });

  it('forwards bodies untouched: JSON and the form-encoded payment notification', async () => {
    const json = await request(gateway.url)
      .post('/api/v1/checkout/submit')
      .set('Cookie', customer.cookie)
      .send({ addressId: 'a', items: [{ productId: 'p', quantity: 2 }] })
      .expect(200);
    expect((json.body as Echo).body).toEqual({ addressId: 'a', items: [{ productId: 'p', quantity: 2 }] });

    const form = await request(gateway.url).post('/api/v1/payments/notify').type('form').send('tranID=123&status=00&skey=abc').expect(200);
    expect(form.body).toMatchObject({ identity: null, body: { tranID: '123', status: '00', skey: 'abc' } });
  });

  it('passes the upstream answer through (status, headers, body)', async () => {
    const res = await request(gateway.url).get('/api/v1/checkout/created').set('Cookie', customer.cookie).expect(201);
    expect(res.headers.location).toBe('/api/v1/checkout/created/1');
    expect(res.headers['x-upstream']).toBe('yes');
    expect(res.body).toEqual({ id: 1 });
  });

  it('passes upstream problems through unchanged (here: the upstream 415)', async () => {
    const res = await request(gateway.url).post('/api/v1/checkout/submit').set('Cookie', customer.cookie).type('text').send('x').expect(415);
    expect(res.body).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('answers 401 without a session on a non-public route', async () => {
    for (const path of ['/api/v1/checkout/submit', '/api/v1/account/addresses', '/api/v1/vendor/shipments', '/api/v1/admin/vouchers', '/api/v1/b2b/context']) {
      const res = await request(gateway.url).get(path).expect(401);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 401, code: 'unauthenticated' });
    }
  });

  it('answers 403 to the wrong role', async () => {
    const vendorOnly = await request(gateway.url).get('/api/v1/vendor/shipments').set('Cookie', customer.cookie).expect(403);
    expect(vendorOnly.body).toMatchObject({ status: 403, code: 'forbidden' });
    await request(gateway.url).get('/api/v1/admin/vouchers').set('Cookie', vendorUser.cookie).expect(403);
    await request(gateway.url).get('/api/v1/vendor/products').set('Cookie', adminUser.cookie).expect(403);
  });

  it('sends each prefix to its service', async () => {
    const cases: [string, SignedInUser, string][] = [
      ['/api/v1/vendor/products/x', vendorUser, 'checkout'],
      ['/api/v1/vendor/returns', vendorUser, 'checkout'],
      ['/api/v1/vendor/shipments/x', vendorUser, 'vendor'],
      ['/api/v1/admin/vouchers', adminUser, 'checkout'],
      ['/api/v1/admin/categories', adminUser, 'checkout'],
      ['/api/v1/admin/shipments/x/label-url', adminUser, 'admin'],
      ['/api/v1/admin/vendor-applications', adminUser, 'admin'],
      ['/api/v1/vendor-applications', customer, 'admin'],
      ['/api/v1/family/cart', customer, 'checkout'],
    ];
    for (const [path, user, service] of cases) {
      const res = await request(gateway.url).get(path).set('Cookie', user.cookie).expect(200);
      expect(res.body).toMatchObject({ service, path, identity: { userId: user.id } });
    }
  });

  it('answers 404 problem for paths no route serves', async () => {
    for (const path of ['/api/v1/nothing', '/api/v1/payments/other', '/api/v1/admin', '/api/v1/catalog/../admin/vouchers']) {
      const res = await request(gateway.url).get(path).set('Cookie', adminUser.cookie).expect(404);
      expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  it('answers 503 service_unavailable when the service is down', async () => {
    const res = await request(gateway.url).get('/api/v1/b2b/context').set('Cookie', customer.cookie).expect(503);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable', requestId: res.headers['x-request-id'] });
  });

  it('answers 504 when the service does not answer in time', async () => {
    // the upstream would answer 200 after 2.5 s: a 504 can only come from the 1 s timeout
    const res = await request(gateway.url).get('/api/v1/checkout/slow').set('Cookie', customer.cookie).expect(504);
    expect(res.body).toMatchObject({ status: 504, code: 'upstream_timeout' });
  });

  it('answers 502 when the service breaks the connection', async () => {
    const broken: Server = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const port = (broken.address() as AddressInfo).port;
    const other = await world.start({ CHECKOUT_URL: `http://127.0.0.1:${port}` });
    try {
      const res = await request(other.url).get('/api/v1/catalog/products').expect(502);
      expect(res.body).toMatchObject({ status: 502, code: 'bad_gateway' });
    } finally {
      await new Promise<void>((resolve) => broken.close(() => resolve()));
    }
  });

  it('answers CORS preflights for configured origins only, with credentials', async () => {
    const allowed = await request(gateway.url)
      .options('/api/v1/checkout/submit')
      .set('Origin', 'http://shop.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .expect(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('http://shop.example');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect(allowed.headers['access-control-max-age']).toBe('600');

    const other = await request(gateway.url).options('/api/v1/checkout/submit').set('Origin', 'http://evil.example').set('Access-Control-Request-Method', 'POST');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();

    const simple = await request(gateway.url).get('/api/v1/catalog/products').set('Origin', 'http://shop.example').expect(200);
    expect(simple.headers['access-control-allow-origin']).toBe('http://shop.example');
  });

  it("keeps its Vary: Origin beside the upstream's Vary, on both paths (one origin's answer is never another's)", async () => {
    const cases: [upstream: string | undefined, answered: string][] = [
      ['Accept-Language', 'Accept-Language, Origin'],
      [undefined, 'Origin'],
      ['origin', 'origin'], // case-insensitive: once
      ['Accept-Encoding, ORIGIN, Accept-Language', 'Accept-Encoding, ORIGIN, Accept-Language'],
      ['Accept-Language, *', '*'], // * wins
    ];
    for (const { url } of [gateway, expressPath]) {
      for (const [upstream, answered] of cases) {
        const path = `/api/v1/checkout/varied${upstream === undefined ? '' : `?vary=${encodeURIComponent(upstream)}`}`;
        const res = await request(url).get(path).set('Cookie', customer.cookie).set('Origin', 'http://shop.example').expect(200);
        expect({ url, upstream, vary: res.headers.vary, origin: res.headers['access-control-allow-origin'] }).toEqual({ url, upstream, vary: answered, origin: 'http://shop.example' });
      }
      // no CORS answer (no Origin, or one not configured): the upstream's Vary as it is
      for (const origin of [undefined, 'http://evil.example']) {
        const call = request(url).get('/api/v1/checkout/varied?vary=Accept-Language').set('Cookie', customer.cookie);
        const res = await (origin ? call.set('Origin', origin) : call).expect(200);
        expect({ url, origin, vary: res.headers.vary }).toEqual({ url, origin, vary: 'Accept-Language' });
      }
    }
  });

  it('refuses a body on a GET, HEAD or DELETE with 400 body_not_allowed on both paths, before it reaches the service', async () => {
    const send = (url: string, method: string, body: string, type: string) =>
      new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
        const headers = { cookie: customer.cookie, 'content-type': type, 'content-length': Buffer.byteLength(body) };
        const req = httpRequest(`${url}/api/v1/checkout/pending-order`, { method, headers }, (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0, type: answer.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }));
        });
        req.on('error', reject);
        req.end(body);
      });
    for (const { url } of [gateway, expressPath]) {
      for (const method of ['GET', 'DELETE']) {
        for (const [body, type] of [['hello', 'text/plain'], ['{"a":1}', 'application/json']]) {
          const answer = await send(url, method, body, type);
          expect({ url, method, type, status: answer.status, code: (JSON.parse(answer.body) as { code: string }).code }).toEqual({ url, method, type, status: 400, code: 'body_not_allowed' });
          expect(answer.type).toMatch(/application\/problem\+json/);
        }
      }
      const head = await send(url, 'HEAD', 'hello', 'text/plain');
      expect({ url, status: head.status, body: head.body }).toEqual({ url, status: 400, body: '' });
      // refused by the gateway itself: the b2b service is down, yet the answer is the 400, not a 503
      const down = await request(url).get('/api/v1/b2b/context').set('Cookie', customer.cookie).set('content-type', 'text/plain').send('hello');
      expect({ url, status: down.status, code: (down.body as { code: string }).code }).toEqual({ url, status: 400, code: 'body_not_allowed' });
      // the credentials are checked first: a caller without a session still gets 401
      await request(url).get('/api/v1/checkout/pending-order').set('content-type', 'text/plain').send('hello').expect(401);
      // without a body (or an empty one) the request goes through
      await request(url).get('/api/v1/checkout/pending-order').set('Cookie', customer.cookie).set('content-length', '0').expect(200);
      await request(url).delete('/api/v1/account/addresses/x').set('Cookie', customer.cookie).expect(200);
    }
  });

  it('sets security headers on proxied answers too', async () => {
    const res = await request(gateway.url).get('/api/v1/catalog/products').expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    expect(res.headers['strict-transport-security']).toBeDefined();
  });

  it('reports proxied requests in /metrics by route prefix', async () => {
    const metrics = await request(gateway.opsUrl as string).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/catalog"/);
  });
});
