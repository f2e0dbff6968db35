import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import pino from 'pino';
import { z } from 'zod';
import { requireRole } from './auth';
import { badRequest, conflict, notFound } from './problems';
import { EVENT_LOOP_SAMPLE_MS, createService, type RunningServer } from './service';
import { parse } from './validate';
import { ConfigError, baseConfigSchema, loadConfig } from './config';

const secret = 'service-kit-test-secret-123';
const customer = { userId: '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69', role: 'customer' as const, email: 'c@example.test' };
// signed for each request's method and path when sent (the testkit's supertest hook)
const signed = (identity: typeof customer | null = customer) => signedHeaders(identity, secret, 'req-test');
let ready = true;

const service = createService({
  name: 'kit',
  log: pino({ level: 'silent' }),
  identitySecret: secret,
  publicPaths: ['/public'],
  formPaths: ['/form'],
  routeBodyLimits: { '/large': '3mb' },
  readiness: {
    database: () => {
      if (!ready) throw new Error('database down');
    },
  },
  routes: (router) => {
    router.get('/public', (req, res) => {
      res.json({ anonymous: req.identity === null });
    });
    router.post('/echo', (req, res) => {
      const body = parse(z.object({ name: z.string().min(1) }), req.body);
      res.status(201).json({ name: body.name, by: requireRole(req, 'customer').userId });
    });
    router.post('/large', (req, res) => {
      res.json({ length: String(req.body.text).length });
    });
    router.post('/form', (req, res) => {
      res.json(req.body);
    });
    router.get('/fail/:kind', (req) => {
      if (req.params.kind === 'bad') throw badRequest('bad_thing', 'that is bad');
      if (req.params.kind === 'missing') throw notFound('widget');
      if (req.params.kind === 'conflict') throw conflict('already_done');
      throw new Error('database password is hunter2');
    });
    router.get('/admin-only', (req, res) => {
      requireRole(req, 'admin');
      res.end();
    });
  },
});
let server: RunningServer;

beforeAll(async () => {
  server = await service.listen(0);
});
afterAll(async () => {
  await server.close();
});

describe('createService', () => {
  test('/healthz, /readyz reflects its checks, /metrics counts routes', async () => {
    await request(server.url).get('/healthz').expect(200, { status: 'ok', service: 'kit' });
    await request(server.url).get('/readyz').expect(200);
    ready = false;
    const notReady = await request(server.url).get('/readyz').expect(503);
    expect(notReady.body.checks.database).toBe('database down');
    ready = true;
    await request(server.url).post('/api/v1/echo').set(signed()).send({ name: 'x' }).expect(201);
    const metrics = await request(server.url).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/echo"[^}]*status="201"/);
  });

  test('every API request needs the gateway signature; public paths accept a signed anonymous call', async () => {
    await request(server.url).get('/api/v1/public').expect(401);
    await request(server.url).get('/api/v1/public').set(signed(null)).expect(200, { anonymous: true });
    const anonymousOnPrivate = await request(server.url).post('/api/v1/echo').set(signed(null)).send({ name: 'x' }).expect(401);
    expect(anonymousOnPrivate.body.code).toBe('unauthenticated');
  });

  test('request id: taken from the gateway header and echoed', async () => {
    const res = await request(server.url).get('/api/v1/public').set(signed(null));
    expect(res.headers['x-request-id']).toBe('req-test');
  });

  test('zod failures → 400 problem+json with errors', async () => {
    const res = await request(server.url).post('/api/v1/echo').set(signed()).send({ name: '' }).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed', requestId: 'req-test' });
    expect(res.body.errors[0].path).toEqual(['name']);
  });

  test('wrong role → 403; problems thrown by handlers keep their status and code', async () => {
    await request(server.url).get('/api/v1/admin-only').set(signed()).expect(403);
    expect((await request(server.url).get('/api/v1/fail/bad').set(signed()).expect(400)).body.code).toBe('bad_thing');
    expect((await request(server.url).get('/api/v1/fail/missing').set(signed()).expect(404)).body.detail).toBe('widget not found');
    expect((await request(server.url).get('/api/v1/fail/conflict').set(signed()).expect(409)).body.code).toBe('already_done');
  });

  test('an unknown error → 500 without internals', async () => {
    const res = await request(server.url).get('/api/v1/fail/boom').set(signed()).expect(500);
    expect(res.body.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
  });

  test('writes must be JSON (415), malformed JSON → 400, bodies over 1 MiB → 413', async () => {
    await request(server.url).post('/api/v1/echo').set(signed()).set('content-type', 'text/plain').send('name=x').expect(415);
    await request(server.url).post('/api/v1/echo').set(signed()).type('form').send({ name: 'x' }).expect(415);
    const malformed = await request(server.url).post('/api/v1/echo').set(signed()).set('content-type', 'application/json').send('{"name":').expect(400);
    expect(malformed.body.code).toBe('malformed_json');
    const big = await request(server.url).post('/api/v1/echo').set(signed()).send({ name: 'x'.repeat(1024 * 1024 + 10) }).expect(413);
    expect(big.body.code).toBe('payload_too_large');
  });

  test('form bodies only where declared', async () => {
    await request(server.url).post('/api/v1/form').set(signed(null)).type('form').send({ a: '1' }).expect(401);
    await request(server.url).post('/api/v1/form').set(signed()).type('form').send({ a: '1' }).expect(200, { a: '1' });
  });

  test('unknown routes → 404 problem', async () => {
    const res = await request(server.url).get('/api/v1/nowhere').set(signed()).expect(404);
    expect(res.body.code).toBe('not_found');
    await request(server.url).get('/nowhere').expect(404);
  });
});

describe('loadConfig', () => {
  test('parses with defaults and names every bad variable', () => {
    const schema = baseConfigSchema;
    const config = loadConfig(schema, { PORT: '4100', DATABASE_URL: 'postgresql://x@h/db?schema=s', IDENTITY_SECRET: 'x'.repeat(16) });
    expect(config).toMatchObject({ PORT: 4100, NATS_NAMESPACE: '', MIGRATE_ON_START: true, NODE_ENV: 'production' });
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'abc', DATABASE_URL: 'mysql://x', IDENTITY_SECRET: 'short' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/PORT/);
    expect(String(error)).toMatch(/DATABASE_URL/);
    expect(String(error)).toMatch(/IDENTITY_SECRET/);
  });
});

describe('routeBodyLimits', () => {
  test('one path takes a larger body with the same checks; every other path keeps 1 MiB', async () => {
    const text = 'x'.repeat(2 * 1024 * 1024);
    expect((await request(server.url).post('/api/v1/large').set(signed()).send({ text }).expect(200)).body).toEqual({ length: text.length });
    await request(server.url).post('/api/v1/echo').set(signed()).send({ name: text }).expect(413);
    await request(server.url).post('/api/v1/large').set(signed()).send({ text: 'x'.repeat(4 * 1024 * 1024) }).expect(413);
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    const tooDeep = await request(server.url).post('/api/v1/large').set(signed()).set('content-type', 'application/json').send(deep).expect(400);
    expect(tooDeep.body.code).toBe('json_too_deep');
    const nul = await request(server.url).post('/api/v1/large').set(signed()).send({ text: 'a\u0000b' }).expect(400);
    expect(nul.body.code).toBe('nul_character');
  });
});

describe('default metrics', () => {
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);

  test('the event-loop delay histogram samples every 100 ms (not a 10 ms timer waking an idle service), and a stall still shows', async () => {
    const sampled = createService({ name: 'sampled', log: pino({ level: 'silent' }), identitySecret: secret, routes: () => undefined });
    await sampled.metrics.metrics(); // a scrape resets the histogram: count from here
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stallUntil = Date.now() + 300;
    while (Date.now() < stallUntil); // the loop is blocked for 300 ms
    await new Promise((resolve) => setTimeout(resolve, 300));
    const text = await sampled.metrics.metrics();
    expect(EVENT_LOOP_SAMPLE_MS).toBe(100);
    // each sample is the time between two ticks of the sampling timer: at least its period
    expect(gauge(text, 'nodejs_eventloop_lag_min_seconds')).toBeGreaterThanOrEqual(0.095);
    expect(gauge(text, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.3);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{/m);
  });
});
