import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { requireRole } from './auth';
import { bodySha256, signIdentityHeaders, type Identity } from './identity';
import { conflict } from './problems';
import { leanRouter, mountOnExpress, type LeanRequest, type LeanRoute } from './lean';
import { createService, type RunningServer } from './service';
import { parse } from './validate';

// The lean path against the reference it must equal: the same routes mounted on express alone.
// Every request below goes to both services; status, the headers a client reads and the body
// must be the same.

const secret = 'service-kit-lean-test-secret';
const customer = { userId: '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69', role: 'customer' as const, email: 'c@example.test' };
const admin = { ...customer, role: 'admin' as const };
/** Headers signed for this request (its body as sent, none by default), with a fixed request id: both services then answer the same problem bodies. */
const signFor = (method: string, path: string, identity: Identity | null, key: string, body: string | Buffer = '') =>
  signIdentityHeaders(key, { method, path, bodySha256: bodySha256(body) }, identity, 'req-lean');

const routes = leanRouter();
routes.post('/echo/:id', async (req) => {
  const { userId } = requireRole(req, 'customer');
  const body = parse(z.object({ name: z.string().min(1) }), req.body);
  if (body.name === 'taken') throw conflict('name_taken', 'that name is taken');
  if (body.name === 'boom') throw new Error('database password is hunter2');
  if (body.name === 'busy') throw Object.assign(new Error('Unable to start a transaction in the given time.'), { code: 'P2028', clientVersion: '7.0.0' });
  return { status: 201, location: `/api/v1/echo/${req.params.id}/${body.name}`, body: { id: req.params.id, name: body.name, by: userId, key: req.get('Idempotency-Key') ?? null } };
});
routes.get('/things/:id', async (req) => ({ status: 200, body: { id: req.params.id, anonymous: req.identity === null } }));
routes.post('/empty', async () => ({ status: 204 }));
routes.post('/small', async (req) => ({ status: 200, body: req.body }));
routes.get('/which', async (req) => ({ status: 200, body: { express: 'app' in (req as LeanRequest & { app?: unknown }) } }));

const options = { log: pino({ level: 'silent' }), identitySecret: secret, publicPaths: ['/things/*'], bodyLimit: '2kb', routeBodyLimits: { '/small': '64b' } };
const lean = createService({ ...options, name: 'lean', leanRoutes: routes.routes, routes: () => undefined });
const reference = createService({ ...options, name: 'reference', routes: (router) => mountOnExpress(router, routes.routes) });
let leanServer: RunningServer;
let referenceServer: RunningServer;

beforeAll(async () => {
  [leanServer, referenceServer] = await Promise.all([lean.listen(0), reference.listen(0)]);
});
afterAll(async () => {
  await Promise.all([leanServer.close(), referenceServer.close()]);
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}
type Call = (server: RunningServer) => request.Test | Promise<Answer>;

/** A request sent with node's http client, byte for byte as given (supertest re-encodes some bodies). */
function raw(server: RunningServer, method: string, path: string, headers: Record<string, string | number>, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What a client sees of an answer: status, the headers it reads, the body as sent. */
async function seen(call: Call, server: RunningServer) {
  const res: Answer = await call(server);
  const pick = (name: string) => res.headers[name] ?? null;
  return {
    status: res.status,
    headers: { type: pick('content-type'), length: pick('content-length'), etag: pick('etag'), location: pick('location'), requestId: pick('x-request-id'), retryAfter: pick('retry-after') },
    body: res.text,
  };
}

/** Sends the call to both services and expects the same answer; returns it. */
async function same(call: Call) {
  const [fromLean, fromReference] = await Promise.all([seen(call, leanServer), seen(call, referenceServer)]);
  expect(fromLean).toEqual(fromReference);
  return fromLean;
}

/** A signed POST of `body` (sent as is) with the given content type. */
const post = (path: string, body: string | Buffer, type = 'application/json', identity: Identity | null = customer, extra: Record<string, string> = {}): Call => (server) =>
  request(server.url)
    .post(path)
    .set({ ...signFor('POST', path, identity, secret, body), 'x-request-id': 'req-lean', 'content-type': type, ...extra })
    .send(body);

const echo = '/api/v1/echo/abc';

describe('lean routes answer what the same routes answer on express', () => {
  test('the lean path serves them (no express request), and counts them under the route', async () => {
    const get = (server: RunningServer) => request(server.url).get('/api/v1/which').set(signFor('GET', '/api/v1/which', customer, secret));
    expect((await get(leanServer)).body).toEqual({ express: false });
    expect((await get(referenceServer)).body).toEqual({ express: true });
    const metrics = await request(leanServer.url).get('/metrics');
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/which"[^}]*status="200"/);
  });

  test('201 with Location, JSON with its charset, length and weak ETag; parameters and headers reach the handler', async () => {
    const answer = await same(post(echo, JSON.stringify({ name: 'siti' }), 'application/json', customer, { 'idempotency-key': 'k-1' }));
    expect(answer.status).toBe(201);
    expect(answer.headers).toMatchObject({ type: 'application/json; charset=utf-8', location: '/api/v1/echo/abc/siti', requestId: 'req-lean' });
    expect(JSON.parse(answer.body)).toEqual({ id: 'abc', name: 'siti', by: customer.userId, key: 'k-1' });
    // a Location is percent-encoded as express encodes it
    expect((await same(post(echo, JSON.stringify({ name: 'nasi lemak' })))).headers.location).toBe('/api/v1/echo/abc/nasi%20lemak');
  });

  test('the path matches as on express: a trailing slash, another case, a percent-encoded parameter', async () => {
    for (const path of ['/api/v1/echo/abc/', '/API/V1/Echo/abc', '/api/v1/echo/a%20b']) {
      expect((await same(post(path, JSON.stringify({ name: 'x' })))).status).toBe(201);
    }
    expect(JSON.parse((await same(post('/api/v1/echo/a%20b', JSON.stringify({ name: 'x' })))).body).id).toBe('a b');
  });

  test('401 without a valid signature or anonymous on a private path, 403 for another role', async () => {
    const unsigned: Call = (server) => request(server.url).post(echo).set({ 'x-request-id': 'req-lean' }).send({ name: 'x' });
    expect((await same(unsigned)).status).toBe(401);
    const forged: Call = (server) => request(server.url).post(echo).set({ ...signFor('POST', '/api/v1/echo/other', customer, secret), 'x-request-id': 'req-lean' }).send({ name: 'x' });
    expect((await same(forged)).status).toBe(401);
    expect(JSON.parse((await same(post(echo, JSON.stringify({ name: 'x' }), 'application/json', null))).body)).toMatchObject({ status: 401, detail: 'sign in first' });
    expect((await same(post(echo, JSON.stringify({ name: 'x' }), 'application/json', admin))).status).toBe(403);
  });

  test('the body rules: 415 not JSON, 413 over the limit, 400 malformed_json, json_too_deep, nul_character, malformed_unicode, validation_failed', async () => {
    const cases: [string | Buffer, string, number, string][] = [
      ['name=x', 'text/plain', 415, 'unsupported_media_type'],
      ['name=x', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
      [JSON.stringify({ name: 'x'.repeat(3000) }), 'application/json', 413, 'payload_too_large'],
      ['{"name":', 'application/json', 400, 'malformed_json'],
      [`${'['.repeat(70)}${']'.repeat(70)}`, 'application/json', 400, 'json_too_deep'],
      ['{"name":"a\\u0000b"}', 'application/json', 400, 'nul_character'],
      ['{"name":"\\ud800"}', 'application/json', 400, 'malformed_unicode'],
      ['{"name":""}', 'application/json', 400, 'validation_failed'],
      ['"just a string"', 'application/json', 400, 'validation_failed'],
      ['', 'application/json', 400, 'validation_failed'],
    ];
    for (const [body, type, status, code] of cases) {
      const answer = await same(post(echo, body, type));
      expect([answer.status, JSON.parse(answer.body).code]).toEqual([status, code]);
      expect(answer.headers.type).toBe('application/problem+json; charset=utf-8');
    }
  });

  test('a route with a body limit of its own (routeBodyLimits) holds it: 413 past it, its answer below it', async () => {
    expect((await same(post('/api/v1/small', JSON.stringify({ note: 'x'.repeat(100) })))).status).toBe(413);
    expect(JSON.parse((await same(post('/api/v1/small', JSON.stringify({ note: 'x' })))).body)).toEqual({ note: 'x' });
  });

  test("a handler's problem keeps its status and code; an unexpected error is a 500 that shows nothing of it", async () => {
    expect(JSON.parse((await same(post(echo, JSON.stringify({ name: 'taken' })))).body)).toMatchObject({ status: 409, code: 'name_taken' });
    const failed = await same(post(echo, JSON.stringify({ name: 'boom' })));
    expect(JSON.parse(failed.body)).toMatchObject({ status: 500, code: 'internal_error' });
    expect(failed.body).not.toContain('hunter2');
    const busy = await same(post(echo, JSON.stringify({ name: 'busy' })));
    expect({ status: busy.status, retryAfter: busy.headers.retryAfter, code: JSON.parse(busy.body).code }).toEqual({ status: 503, retryAfter: '1', code: 'database_busy' });
  });

  test('the signature covers the body: headers replayed with another body or with none → 401, the signed body passes', async () => {
    const signedBody = JSON.stringify({ name: 'signed' });
    const captured = { ...signFor('POST', echo, customer, secret, signedBody), 'x-request-id': 'req-lean', 'content-type': 'application/json' };
    const replay = (body: string | undefined): Call => (server) => {
      const sent = request(server.url).post(echo).set(captured);
      return body === undefined ? sent : sent.send(body);
    };
    for (const body of [JSON.stringify({ name: 'other' }), `${signedBody} `, '', undefined]) {
      const answer = await same(replay(body));
      expect([answer.status, JSON.parse(answer.body)]).toEqual([401, expect.objectContaining({ code: 'unauthenticated', detail: 'the request body is not the one the identity signature covers' })]);
    }
    // a GET signed without a body is not a licence to send one: a GET takes none at all
    const get: Call = (server) =>
      request(server.url).get('/api/v1/which').set({ ...signFor('GET', '/api/v1/which', customer, secret), 'x-request-id': 'req-lean', 'content-type': 'application/json' }).send('{"a":1}');
    const refused = await seen(get, referenceServer);
    expect([refused.status, JSON.parse(refused.body).code]).toEqual([400, 'body_not_allowed']);
    expect((await same(replay(signedBody))).status).toBe(201);
  });

  test('a body with a Content-Encoding → 415 on both paths (the signature covers the bytes as sent); another charset goes to express', async () => {
    const zipped = gzipSync(JSON.stringify({ name: 'zipped' }));
    const headers = { ...signFor('POST', echo, customer, secret, zipped), 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': zipped.length };
    const gzipped = await same((server) => raw(server, 'POST', echo, headers, zipped));
    expect([gzipped.status, JSON.parse(gzipped.body).code]).toEqual([415, 'unsupported_content_encoding']);
    expect((await same(post(echo, JSON.stringify({ name: 'x' }), 'application/json; charset=latin1'))).status).toBe(415);
  });

  test('GET: 200 with an ETag, 304 for If-None-Match of it, HEAD without a body; a public path takes a signed anonymous call', async () => {
    const path = '/api/v1/things/t-1';
    const get = (identity: Identity | null, extra: Record<string, string> = {}): Call => (server) =>
      request(server.url).get(path).set({ ...signFor('GET', path, identity, secret), 'x-request-id': 'req-lean', ...extra });
    const first = await same(get(customer));
    expect([first.status, JSON.parse(first.body)]).toEqual([200, { id: 't-1', anonymous: false }]);
    expect(first.headers.etag).toMatch(/^W\//);
    expect((await same(get(customer, { 'if-none-match': first.headers.etag as string }))).status).toBe(304);
    const head: Call = (server) => request(server.url).head(path).set({ ...signFor('HEAD', path, customer, secret), 'x-request-id': 'req-lean' });
    expect(await same(head)).toMatchObject({ status: 200, headers: { length: first.headers.length, etag: first.headers.etag } });
    expect(JSON.parse((await same(get(null))).body)).toEqual({ id: 't-1', anonymous: true });
  });

  test('an empty answer, another method, a malformed URL and an unknown path', async () => {
    expect((await same(post('/api/v1/empty', ''))).status).toBe(204);
    const put: Call = (server) =>
      request(server.url).put(echo).set({ ...signFor('PUT', echo, customer, secret, JSON.stringify({ name: 'x' })), 'x-request-id': 'req-lean' }).send({ name: 'x' });
    expect((await same(put)).status).toBe(404);
    expect(JSON.parse((await same(post('/api/v1/echo/%E0%A4%A', '{}'))).body).code).toBe('malformed_url');
  });
});

test('lean routes refuse to share a service with express-side request hooks they would skip', () => {
  const declared: LeanRoute[] = leanRouter().routes;
  declared.push({ method: 'GET', path: '/x', handler: async () => ({ status: 204 }) });
  expect(() => createService({ ...options, name: 'mixed', leanRoutes: declared, appMiddleware: [(_req, _res, next) => next()], routes: () => undefined })).toThrow(/lean routes/);
});
