import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BUS_MIGRATIONS, deleteNamespaceStreams, type Bus } from '@pasar/bus';
import { assertNoDrift, checkFunctions, connectionStringWithoutSchema, createTestSchema, functionsDirFor, quoteIdent, readDatamodel } from '@pasar/db';
import { Client } from 'pg';
import { DEV_IDENTITY_SECRET, loadConfig, type BaseConfig } from '@pasar/service-kit';
import request from 'supertest';
import type { z } from 'zod';
import { uniqueNamespace, silentLog } from './bus';
import { TEST_IDENTITY_SECRET, signedHeaders } from './identity';

export interface StartedService {
  url: string;
  bus: Bus;
  close(): Promise<void>;
}

export interface ServiceBasics<C extends BaseConfig> {
  name: string;
  port: number;
  schema: string;
  configSchema: z.ZodType<C>;
  start: (config: C, overrides: { log: typeof silentLog }) => Promise<StartedService>;
  /** The folder of the generated client (holds datamodel.json). */
  generatedDir: string;
}

/** The env a service test starts with: port 0, a fresh schema and namespace, the test secret. */
export function testServiceEnv(databaseUrl: string, namespace = uniqueNamespace()): Record<string, string> {
  return { NODE_ENV: 'test', PORT: '0', DATABASE_URL: databaseUrl, NATS_NAMESPACE: namespace, IDENTITY_SECRET: TEST_IDENTITY_SECRET };
}

/**
 * What every service must do, as one suite: health and readiness, the signed-identity gate,
 * migrations matching schema.prisma (drift), and config defaults that refuse production without a secret.
 */
export function describeServiceBasics<C extends BaseConfig>(basics: ServiceBasics<C>): void {
  describe(`${basics.name}: service basics`, () => {
    const db = createTestSchema(undefined, basics.schema);
    let service: StartedService;

    beforeAll(async () => {
      service = await basics.start(loadConfig(basics.configSchema, testServiceEnv(db.databaseUrl)), { log: silentLog });
    });
    afterAll(async () => {
      if (service) {
        await deleteNamespaceStreams(service.bus).catch(() => undefined);
        await service.close();
      }
      await db.drop();
    });

    test('answers /healthz, and /readyz once its database and NATS are up', async () => {
      await request(service.url).get('/healthz').expect(200, { status: 'ok', service: basics.name });
      const ready = await request(service.url).get('/readyz').expect(200);
      expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', nats: 'ok' } });
      const metrics = await request(service.url).get('/metrics').expect(200);
      expect(metrics.text).toContain('http_request_duration_seconds');
    });

    test('answers an unsigned API request with a 401 problem, a signed one to no route with 404', async () => {
      const unsigned = await request(service.url).get('/api/v1/no-such-route').expect(401);
      expect(unsigned.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(unsigned.body).toMatchObject({ status: 401, code: 'unauthenticated' });
      const forged = { ...signedHeaders({ role: 'admin' }), 'x-pasar-role': 'vendor' };
      await request(service.url).get('/api/v1/no-such-route').set(forged).expect(401);
      await request(service.url).get('/api/v1/no-such-route').set(signedHeaders({ role: 'admin' })).expect(404);
    });

    test('counts its dead letters on /metrics (pasar_dead_letters)', async () => {
      const client = new Client({ connectionString: connectionStringWithoutSchema(db.databaseUrl) });
      await client.connect();
      try {
        await client.query(
          `INSERT INTO ${quoteIdent(db.schema)}.outbox_dead_letter (id, seq, type, payload, created_at, error) VALUES (gen_random_uuid(), 1, 'x.y.z', '{}', now(), 'too large')`,
        );
        const metrics = await request(service.url).get('/metrics').expect(200);
        expect(metrics.text).toMatch(/pasar_dead_letters\{[^}]*kind="outbox"[^}]*\} 1\b/);
        expect(metrics.text).toMatch(/pasar_dead_letters\{[^}]*kind="consumer"[^}]*\} 0\b/);
      } finally {
        await client.query(`DELETE FROM ${quoteIdent(db.schema)}.outbox_dead_letter`);
        await client.end();
      }
    });

    test('its SQL migrations and schema.prisma agree (no drift)', async () => {
      await assertNoDrift({ databaseUrl: db.databaseUrl, datamodel: readDatamodel(basics.generatedDir) });
    });

    test('every SQL function in its schema is its source file in sql/functions (no drift)', async () => {
      const functionsDirs = [functionsDirFor(BUS_MIGRATIONS.migrationsDir), join(packageRootOf(basics.generatedDir), 'sql', 'functions')];
      expect(await checkFunctions({ databaseUrl: db.databaseUrl, functionsDirs })).toEqual([]);
    });

    test('config: local defaults in development, but a missing NODE_ENV is production and must set IDENTITY_SECRET', () => {
      expect(loadConfig(basics.configSchema, { NODE_ENV: 'development' })).toMatchObject({
        PORT: basics.port,
        IDENTITY_SECRET: DEV_IDENTITY_SECRET,
        DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/postgres?schema=${basics.schema}`,
      });
      expect(() => loadConfig(basics.configSchema, {})).toThrow(/IDENTITY_SECRET/);
      expect(() => loadConfig(basics.configSchema, { NODE_ENV: 'production' })).toThrow(/IDENTITY_SECRET/);
      expect(() => loadConfig(basics.configSchema, { NODE_ENV: 'production', IDENTITY_SECRET: DEV_IDENTITY_SECRET })).toThrow(
        /IDENTITY_SECRET is the public development default/,
      );
    });
  });
}

/** The folder of the package.json nearest above `dir` (a service's root). */
function packageRootOf(dir: string): string {
  for (let at = dir; dirname(at) !== at; at = dirname(at)) if (existsSync(join(at, 'package.json'))) return at;
  throw new Error(`no package.json above ${dir}`);
}
