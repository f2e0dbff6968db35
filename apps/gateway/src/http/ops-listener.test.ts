import request from 'supertest';
import { createTestWorld, type TestWorld } from '../../test/harness';

describe('gateway /readyz and /metrics are not public', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(async () => {
    await world.close();
  });

  test('the public listener answers /healthz only; /readyz and /metrics are 404 there', async () => {
    const gateway = await world.start({ METRICS_PORT: '0' });
    await request(gateway.url).get('/healthz').expect(200, { status: 'ok', service: 'gateway' });
    for (const path of ['/readyz', '/metrics']) {
      const res = await request(gateway.url).get(path).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.text).not.toContain('http_request_duration_seconds');
    }
  });

  test('the internal listener (METRICS_PORT, on 127.0.0.1) answers /readyz and /metrics, and nothing of the API', async () => {
    const gateway = await world.start({ METRICS_PORT: '0' });
    const opsUrl = gateway.opsUrl as string;
    expect(opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(opsUrl).not.toBe(gateway.url);
    await request(gateway.url).get('/api/v1/auth/session').expect(401);
    expect((await request(opsUrl).get('/readyz').expect(200)).body).toMatchObject({ status: 'ready', checks: { database: 'ok', nats: 'ok' } });
    expect((await request(opsUrl).get('/metrics').expect(200)).text).toMatch(/http_request_duration_seconds_count\{[^}]*status="401"/);
    await request(opsUrl).get('/healthz').expect(200);
    await request(opsUrl).get('/api/v1/auth/session').expect(404);
  });

  test('without METRICS_PORT there is no internal listener at all', async () => {
    const gateway = await world.start({ METRICS_PORT: '' });
    expect(gateway.opsUrl).toBeUndefined();
    await request(gateway.url).get('/metrics').expect(404);
  });
});
