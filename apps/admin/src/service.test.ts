import { join } from 'node:path';
import { deleteNamespaceStreams } from '@pasar/bus';
import { assertNoDrift, createTestSchema, readDatamodel } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, signedHeaders, silentLog, uniqueNamespace } from '@pasar/testkit';
import request from 'supertest';
import { startAdmin, type AdminService } from './app';
import { DEV_IDENTITY_SECRET, adminConfigSchema } from './config';

const db = createTestSchema(undefined, 'admin');
let admin: AdminService;

beforeAll(async () => {
  const env = { PORT: '0', DATABASE_URL: db.databaseUrl, NATS_NAMESPACE: uniqueNamespace(), IDENTITY_SECRET: TEST_IDENTITY_SECRET };
  admin = await startAdmin(loadConfig(adminConfigSchema, env), { log: silentLog });
});
afterAll(async () => {
  if (admin) await deleteNamespaceStreams(admin.bus);
  await admin?.close();
  await db.drop();
});

test('answers /healthz, and /readyz once its database and NATS are up', async () => {
  await request(admin.url).get('/healthz').expect(200, { status: 'ok', service: 'admin' });
  const ready = await request(admin.url).get('/readyz').expect(200);
  expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', nats: 'ok' } });
});

test('answers an unsigned API request with a 401 problem, a signed one to no route with 404', async () => {
  const unsigned = await request(admin.url).get('/api/v1/anything').expect(401);
  expect(unsigned.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(unsigned.body).toMatchObject({ status: 401, code: 'unauthenticated' });
  await request(admin.url).get('/api/v1/anything').set(signedHeaders({ role: 'admin' })).expect(404);
});

test('its SQL migrations and schema.prisma agree (no drift)', async () => {
  await assertNoDrift({ databaseUrl: db.databaseUrl, datamodel: readDatamodel(join(__dirname, 'generated', 'prisma')) });
});

test('config: local defaults, but production must set IDENTITY_SECRET', () => {
  expect(loadConfig(adminConfigSchema, {})).toMatchObject({ PORT: 4004, IDENTITY_SECRET: DEV_IDENTITY_SECRET, DATABASE_URL: expect.stringMatching(/\?schema=admin$/) });
  expect(() => loadConfig(adminConfigSchema, { NODE_ENV: 'production' })).toThrow(/IDENTITY_SECRET/);
});
