import { join } from 'node:path';
import { assertNoDrift, readDatamodel } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import request from 'supertest';
import { startTestCheckout, type TestCheckout } from '../test/checkout';
import { DEV_IDENTITY_SECRET, checkoutConfigSchema } from './config';

let t: TestCheckout;

beforeAll(async () => {
  t = await startTestCheckout();
});
afterAll(async () => {
  await t?.stop();
});

test('answers /healthz, and /readyz once its database and NATS are up', async () => {
  await request(t.checkout.url).get('/healthz').expect(200, { status: 'ok', service: 'checkout' });
  const ready = await request(t.checkout.url).get('/readyz').expect(200);
  expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', nats: 'ok' } });
});

test('its SQL migrations and schema.prisma agree (no drift)', async () => {
  await assertNoDrift({ databaseUrl: t.checkout.config.DATABASE_URL, datamodel: readDatamodel(join(__dirname, 'generated', 'prisma')) });
});

test('config: local defaults, but production must set IDENTITY_SECRET', () => {
  expect(loadConfig(checkoutConfigSchema, {})).toMatchObject({
    PORT: 4001,
    IDENTITY_SECRET: DEV_IDENTITY_SECRET,
    DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres?schema=checkout',
  });
  expect(() => loadConfig(checkoutConfigSchema, { NODE_ENV: 'production' })).toThrow(/IDENTITY_SECRET/);
  expect(loadConfig(checkoutConfigSchema, { NODE_ENV: 'production', IDENTITY_SECRET: 'a-production-secret-of-32-chars!' }).IDENTITY_SECRET).toBe(
    'a-production-secret-of-32-chars!',
  );
});
