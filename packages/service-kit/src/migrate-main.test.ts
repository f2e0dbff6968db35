import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { BUS_MIGRATIONS, Bus, deleteNamespaceStreams } from '@pasar/bus';
import { createTestSchema, readMigrations } from '@pasar/db';
import { TEST_NATS_URL, silentLog, uniqueNamespace } from '@pasar/testkit';
import { Client } from 'pg';
import { startService } from './boot';
import { loadConfig, serviceConfigSchema } from './config';
import { migrationsDirFor, runMigrations } from './migrate-main';

const ROOT = path.join(__dirname, '..', '..', '..');
const NOTIFIER_MIGRATIONS = path.join(ROOT, 'apps', 'notifier', 'prisma', 'migrations');
const run = promisify(execFile);

async function appliedIn(databaseUrl: string, schema: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl.replace(/\?schema=.*$/, '') });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM "${schema}"."_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY started_at, migration_name`,
    );
    return rows.map((row) => row.migration_name);
  } finally {
    await client.end();
  }
}

describe('migrate-main (the migration Job entry)', () => {
  const schemas: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });

  test('applies the app named by PASAR_APP into the schema of DATABASE_URL, then finds nothing to do', async () => {
    const db = createTestSchema(undefined, 'migrate_main');
    schemas.push(db);
    // the bus tables first (recorded as bus:<folder>), then the service's own
    const expected = [
      ...(await readMigrations(BUS_MIGRATIONS.migrationsDir)).map((m) => `bus:${m.name}`),
      ...(await readMigrations(NOTIFIER_MIGRATIONS)).map((m) => m.name),
    ];
    const env = { DATABASE_URL: db.databaseUrl, PASAR_APP: 'notifier', LOG_LEVEL: 'silent' };

    const first = await runMigrations(env, []);
    expect(first.applied).toEqual(expected);
    expect(await appliedIn(db.databaseUrl, db.schema)).toEqual(expected);

    const again = await runMigrations(env, []);
    expect(again.applied).toEqual([]);
  });

  test('the command the Job runs exits 0 and applies the migrations; a bad DATABASE_URL exits 1 naming it', async () => {
    const db = createTestSchema(undefined, 'migrate_main');
    schemas.push(db);
    const entry = path.join('packages', 'service-kit', 'src', 'migrate-main.ts');
    const env = { ...process.env, DATABASE_URL: db.databaseUrl, PASAR_APP: 'notifier', LOG_LEVEL: 'silent' };
    await run(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env });
    expect((await appliedIn(db.databaseUrl, db.schema)).length).toBeGreaterThan(0);

    const failure = run(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env: { ...env, DATABASE_URL: 'not a url' } });
    await expect(failure).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('DATABASE_URL') });
  });

  test('records exactly what a service applies on start (MIGRATE_ON_START), so the Jobs can replace it', async () => {
    const byJob = createTestSchema(undefined, 'migrate_main');
    const byStart = createTestSchema(undefined, 'migrate_main');
    schemas.push(byJob, byStart);
    await runMigrations({ DATABASE_URL: byJob.databaseUrl, PASAR_APP: 'notifier', LOG_LEVEL: 'silent' }, []);

    const namespace = uniqueNamespace();
    const config = loadConfig(serviceConfigSchema({ port: 0, schema: byStart.schema }, {}), {
      NODE_ENV: 'test',
      DATABASE_URL: byStart.databaseUrl,
      NATS_URL: TEST_NATS_URL,
      NATS_NAMESPACE: namespace,
      LOG_LEVEL: 'silent',
      MIGRATE_ON_START: 'true',
    });
    // the kit only asks its client for readiness: a plain pg connection to the same database
    const database = new Client({ connectionString: byStart.databaseUrl.replace(/\?schema=.*$/, '') });
    await database.connect();
    const service = await startService({
      name: 'migrate-main-test',
      config,
      prisma: {
        $queryRawUnsafe: (query: string) => database.query(query),
        $executeRawUnsafe: async (query: string) => (await database.query(query)).rowCount ?? 0,
        $disconnect: () => database.end(),
      },
      migrationsDir: NOTIFIER_MIGRATIONS,
      log: silentLog,
    });
    await service.close();
    const bus = await Bus.connect({ natsUrl: TEST_NATS_URL, namespace, service: 'migrate-main-test', log: silentLog });
    await deleteNamespaceStreams(bus);
    await bus.close();

    const appliedOnStart = await appliedIn(byStart.databaseUrl, byStart.schema);
    expect(appliedOnStart.length).toBeGreaterThan(0);
    expect(await appliedIn(byJob.databaseUrl, byJob.schema)).toEqual(appliedOnStart);
  });

  test('the migrations folder: the argument wins, else apps/$PASAR_APP/prisma/migrations, else refused', () => {
    expect(migrationsDirFor(['db/migrations'], 'checkout', '/app')).toBe('/app/db/migrations');
    expect(migrationsDirFor([], 'checkout', '/app')).toBe('/app/apps/checkout/prisma/migrations');
    expect(() => migrationsDirFor([], undefined, '/app')).toThrow(/PASAR_APP/);
  });

  test('refuses a missing DATABASE_URL before touching any database', async () => {
    await expect(runMigrations({ PASAR_APP: 'notifier' }, [])).rejects.toThrow(/DATABASE_URL/);
  });
});
