import { createService, type RunningServer } from '@pasar/service-kit';
import request from 'supertest';
import { silentLog } from './bus';
import { TEST_IDENTITY_SECRET, signFor, signedHeaders } from './identity';

const vendor = { userId: '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69', role: 'vendor' as const, email: 'v@example.test' };

describe('signedHeaders with supertest, signFor with other clients', () => {
  let server: RunningServer;

  beforeAll(async () => {
    const service = createService({
      name: 'signing',
      log: silentLog,
      identitySecret: TEST_IDENTITY_SECRET,
      routes: (router) => {
        router.all('/{*rest}', (req, res) => {
          res.json({ method: req.method, path: req.originalUrl, identity: req.identity });
        });
      },
    });
    server = await service.listen(0);
  });
  afterAll(async () => {
    await server.close();
  });

  test('supertest requests are signed for their own method and path (query included) when sent', async () => {
    const headers = signedHeaders(vendor);
    const get = await request(server.url).get('/api/v1/vendor/products').query({ page: 2 }).set(headers).expect(200);
    expect(get.body).toEqual({ method: 'GET', path: '/api/v1/vendor/products?page=2', identity: vendor });
    // the same header set serves another request: each is signed as sent
    await request(server.url).delete('/api/v1/vendor/products/1').set(headers).expect(200);
  });

  test('supertest bodies are signed as sent (JSON, a buffer, none); the same signed headers with another body answer 401', async () => {
    const headers = signedHeaders(vendor);
    await request(server.url).post('/api/v1/vendor/products').set(headers).send({ name: 'kopi' }).expect(200);
    await request(server.url).post('/api/v1/vendor/products').set(headers).set('content-type', 'application/json').send(Buffer.from('{"a":1}')).expect(200);
    await request(server.url).post('/api/v1/vendor/products').set(headers).expect(200);
    const body = JSON.stringify({ name: 'kopi' });
    const signed = signFor('POST', '/api/v1/vendor/products', vendor, TEST_IDENTITY_SECRET, body);
    const post = (sent: string) => fetch(`${server.url}/api/v1/vendor/products`, { method: 'POST', headers: { ...signed, 'content-type': 'application/json' }, body: sent });
    expect((await post(body)).status).toBe(200);
    expect((await post(JSON.stringify({ name: 'teh' }))).status).toBe(401);
  });

  test('the placeholder signature is never accepted: a request the hook does not sign answers 401', async () => {
    const res = await fetch(`${server.url}/api/v1/vendor/products`, { headers: signedHeaders(vendor) });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
  });

  test('headers edited after signedHeaders are not signed with the edit', async () => {
    const forged = { ...signedHeaders(vendor), 'x-pasar-role': 'admin' };
    await request(server.url).get('/api/v1/vendor/products').set(forged).expect(401);
  });

  test('signFor signs one request for fetch; the same headers on another path or method answer 401', async () => {
    const headers = signFor('GET', '/api/v1/vendor/products?page=1', vendor);
    expect((await fetch(`${server.url}/api/v1/vendor/products?page=1`, { headers })).status).toBe(200);
    expect((await fetch(`${server.url}/api/v1/vendor/orders?page=1`, { headers })).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/vendor/products?page=1`, { method: 'DELETE', headers })).status).toBe(401);
  });

  test('headers signed with another secret answer 401', async () => {
    await request(server.url).get('/api/v1/vendor/products').set(signedHeaders(vendor, 'another-secret-of-16-chars')).expect(401);
  });
});
