import request from 'supertest';
import { createTestWorld, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

describe('API description and reference', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;

  beforeAll(async () => {
    world = await createTestWorld();
    gateway = await world.start();
  });
  afterAll(() => world.close());

  it('GET /api/v1/openapi.json is an OpenAPI 3.1 document with the auth paths', async () => {
    const res = await request(gateway.url).get('/api/v1/openapi.json').expect(200).expect('Content-Type', /application\/json/);
    const doc = JSON.parse(res.text) as { openapi: string; paths: Record<string, Record<string, unknown>>; components: { securitySchemes: unknown } };
    expect(doc.openapi).toBe('3.1.0');
    for (const [path, method] of [
      ['/auth/sign-up', 'post'],
      ['/auth/sign-in', 'post'],
      ['/auth/sign-out', 'post'],
      ['/auth/session', 'get'],
      ['/account/profile', 'patch'],
    ]) {
      expect(doc.paths[path]?.[method]).toBeDefined();
    }
    const signIn = doc.paths['/auth/sign-in'].post as { responses: Record<string, unknown> };
    expect(Object.keys(signIn.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    expect(doc.components.securitySchemes).toEqual({ session: { type: 'apiKey', in: 'cookie', name: 'pasar.session_token' } });
  });

  it('GET /api/v1/docs is an HTML page whose assets the gateway serves itself (no CDN)', async () => {
    const res = await request(gateway.url).get('/api/v1/docs').expect(200).expect('Content-Type', /text\/html/);
    expect(res.text).toContain('/api/v1/openapi.json');
    expect(res.text).not.toMatch(/https?:\/\//);
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset.startsWith('/api/v1/docs/assets/')).toBe(true);
      const file = await request(gateway.url).get(asset).expect(200);
      expect(Number(file.headers['content-length'])).toBeGreaterThan(100);
    }
    // the page may run the gateway's own scripts; nothing from elsewhere
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    await request(gateway.url).get('/api/v1/docs/assets/missing.js').expect(404);
  });

  it('leads /docs and /openapi.json at the root to /api/v1', async () => {
    await request(gateway.url).get('/docs').expect(302).expect('Location', '/api/v1/docs');
    await request(gateway.url).get('/openapi.json').expect(302).expect('Location', '/api/v1/openapi.json');
  });

  it('answers health publicly, readiness and metrics on its internal listener', async () => {
    await request(gateway.url).get('/healthz').expect(200, { status: 'ok', service: 'gateway' });
    const ready = await request(gateway.opsUrl as string).get('/readyz').expect(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', nats: 'ok' } });
    const metrics = await request(gateway.opsUrl as string).get('/metrics').expect(200);
    expect(metrics.text).toContain('http_request_duration_seconds');
  });
});
