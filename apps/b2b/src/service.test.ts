import { join } from 'node:path';
import { deleteNamespaceStreams } from '@pasar/bus';
import { assertNoDrift, createTestSchema, readDatamodel } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, signedHeaders, silentLog, uniqueNamespace } from '@pasar/testkit';
import request from 'supertest';
import { startB2b, type B2bService } from './app';
import { DEV_IDENTITY_SECRET, b2bConfigSchema } from './config';

const db = createTestSchema(undefined, 'b2b');
let b2b: B2bService;

beforeAll(async () => {
  const env = { PORT: '0', DATABASE_URL: db.databaseUrl, NATS_NAMESPACE: uniqueNamespace(), IDENTITY_SECRET: TEST_IDENTITY_SECRET };
  b2b = await startB2b(loadConfig(b2bConfigSchema, env), { log: silentLog });
});
afterAll(async () => {
  if (b2b) await deleteNamespaceStreams(b2b.bus);
  await b2b?.close();
  await db.drop();
});

test('answers /healthz, and /readyz once its database and NATS are up', async () => {
  await request(b2b.url).get('/healthz').expect(200, { status: 'ok', service: 'b2b' });
  const ready = await request(b2b.url).get('/readyz').expect(200);
  expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', nats: 'ok' } });
});

test('answers an unsigned API request with a 401 problem, a signed one to no route with 404', async () => {
  const unsigned = await request(b2b.url).get('/api/v1/anything').expect(401);
  expect(unsigned.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(unsigned.body).toMatchObject({ status: 401, code: 'unauthenticated' });
  await request(b2b.url).get('/api/v1/anything').set(signedHeaders({ role: 'admin' })).expect(404);
});

test('its SQL migrations and schema.prisma agree (no drift)', async () => {
  await assertNoDrift({ databaseUrl: db.databaseUrl, datamodel: readDatamodel(join(__dirname, 'generated', 'prisma')) });
});

test('config: local defaults, but production must set IDENTITY_SECRET', () => {
  expect(loadConfig(b2bConfigSchema, {})).toMatchObject({ PORT: 4002, IDENTITY_SECRET: DEV_IDENTITY_SECRET, DATABASE_URL: expect.stringMatching(/\?schema=b2b$/) });
  expect(() => loadConfig(b2bConfigSchema, { NODE_ENV: 'production' })).toThrow(/IDENTITY_SECRET/);
});
