import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { checkDrift, createTestSchema, migrate, readDatamodel, readMigrations, type TestSchema } from '@pasar/db';
import { BUS_MIGRATIONS, migrateServiceSchema } from './migrations';
import { stripSchema } from './outbox';

/** Each service's first migration as it was before the bus tables moved to packages/bus/migrations. */
const BEFORE_THE_MOVE = join(__dirname, '..', 'test', 'fixture', 'before-the-move');
const APPS = join(__dirname, '..', '..', '..', 'apps');
const FIRST_MIGRATION: Record<string, string> = {
  admin: '20261122000000_init',
  b2b: '20261122000000_init',
  checkout: '20261122000000_init',
  gateway: '20261122010000_identity',
  notifier: '20261122020000_init',
  vendor: '20261122000000_init',
};
const SERVICES = Object.keys(FIRST_MIGRATION);

const schemas: TestSchema[] = [];
afterAll(async () => {
  for (const s of schemas) await s.drop();
});

function schemaFor(service: string): TestSchema {
  const s = createTestSchema(undefined, `busmig_${service}`);
  schemas.push(s);
  return s;
}

async function withClient<T>(databaseUrl: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: stripSchema(databaseUrl) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The service's migrations folder as a database migrated yesterday saw it: the old first migration. */
async function yesterdaysMigrations(service: string): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), `${service}-yesterday-`));
  await fs.cp(join(APPS, service, 'prisma', 'migrations'), dir, { recursive: true });
  const first = FIRST_MIGRATION[service];
  await fs.rm(join(dir, first, 'previous-checksums'));
  await fs.copyFile(join(BEFORE_THE_MOVE, `${service}-${first}.sql`), join(dir, first, 'migration.sql'));
  return dir;
}

describe('bus migrations applied by the runner into every service schema', () => {
  test.each(SERVICES)('%s: a fresh schema gets the bus tables first, then its own, with no drift', async (service) => {
    const db = schemaFor(service);
    const migrationsDir = join(APPS, service, 'prisma', 'migrations');
    const { applied } = await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir });
    const bus = (await readMigrations(BUS_MIGRATIONS.migrationsDir)).map((m) => `bus:${m.name}`);
    const own = (await readMigrations(migrationsDir)).map((m) => m.name);
    expect(applied).toEqual([...bus, ...own]);
    const datamodel = readDatamodel(join(APPS, service, 'src', 'generated', 'prisma'));
    expect(await checkDrift({ databaseUrl: db.databaseUrl, datamodel })).toEqual([]);
    // the NOTIFY trigger of the outbox is there
    const triggers = await withClient(db.databaseUrl, async (c) => {
      const { rows } = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid JOIN pg_namespace s ON s.oid = r.relnamespace
          WHERE s.nspname = $1 AND r.relname = 'outbox' AND t.tgname = 'outbox_notify'`,
        [db.schema],
      );
      return rows[0].n;
    });
    expect(triggers).toBe(1);
  });

  test.each(SERVICES)('%s: a database migrated before the move keeps its rows and migrates cleanly', async (service) => {
    const db = schemaFor(service);
    await migrate({ databaseUrl: db.databaseUrl, migrationsDir: await yesterdaysMigrations(service) });
    const eventId = randomUUID();
    await withClient(db.databaseUrl, (c) =>
      c.query(`INSERT INTO "${db.schema}".outbox (id, type, payload) VALUES ($1, 'test.event', '{}')`, [eventId]),
    );

    const { applied } = await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: join(APPS, service, 'prisma', 'migrations') });
    expect(applied.every((name) => name.startsWith('bus:'))).toBe(true);
    expect(applied.length).toBeGreaterThan(0);
    const kept = await withClient(db.databaseUrl, async (c) => (await c.query(`SELECT id FROM "${db.schema}".outbox`)).rows);
    expect(kept).toEqual([{ id: eventId }]);
    const datamodel = readDatamodel(join(APPS, service, 'src', 'generated', 'prisma'));
    expect(await checkDrift({ databaseUrl: db.databaseUrl, datamodel })).toEqual([]);
    // and again: nothing left to do
    expect((await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: join(APPS, service, 'prisma', 'migrations') })).applied).toEqual([]);
  });
});
