import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { migrate, migrationLockKey, readMigrations } from '../src';
import { Schemas, addMigration, fixtureMigrationNames, fixtureMigrationsDir, sha256OfFile, withClient } from './helpers';

interface Row {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

const schemas = new Schemas();
afterAll(() => schemas.dropAll());

async function migrationRows(databaseUrl: string, schema: string): Promise<Row[]> {
  return withClient(databaseUrl, schema, async (c) => {
    const { rows } = await c.query<Row>('SELECT * FROM _prisma_migrations ORDER BY migration_name');
    return rows;
  });
}

async function tableExists(databaseUrl: string, schema: string, table: string): Promise<boolean> {
  return withClient(databaseUrl, schema, async (c) => {
    const { rows } = await c.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [`"${schema}"."${table}"`]);
    return rows[0].t !== null;
  });
}

describe('migrate', () => {
  const db = schemas.create();

  it('applies both fixture migrations and records them as Prisma does', async () => {
    const messages: string[] = [];
    const result = await migrate({
      databaseUrl: db.databaseUrl,
      migrationsDir: fixtureMigrationsDir,
      logger: { info: (m) => messages.push(m) },
    });
    expect(result.applied).toEqual(fixtureMigrationNames);
    expect(messages).toEqual(fixtureMigrationNames.map((n) => `migrated schema "${db.schema}": applied ${n}`));

    const rows = await migrationRows(db.databaseUrl, db.schema);
    expect(rows.map((r) => r.migration_name)).toEqual(fixtureMigrationNames);
    for (const row of rows) {
      const file = path.join(fixtureMigrationsDir, row.migration_name, 'migration.sql');
      expect(row.checksum).toBe(await sha256OfFile(file));
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    // unqualified names in the SQL landed in the service's schema
    expect(await tableExists(db.databaseUrl, db.schema, 'customer')).toBe(true);
    expect(await tableExists(db.databaseUrl, db.schema, 'address')).toBe(true);
  });

  it("creates _prisma_migrations with Prisma's exact columns", async () => {
    const columns = await withClient(db.databaseUrl, db.schema, async (c) => {
      const { rows } = await c.query<{ column_name: string; type: string; is_nullable: string; column_default: string | null }>(
        `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
                CASE WHEN a.attnotnull THEN 'NO' ELSE 'YES' END AS is_nullable,
                pg_get_expr(d.adbin, d.adrelid) AS column_default
           FROM pg_attribute a
           LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY a.attnum`,
        [`"${db.schema}"._prisma_migrations`],
      );
      return rows;
    });
    expect(columns).toEqual([
      { column_name: 'id', type: 'character varying(36)', is_nullable: 'NO', column_default: null },
      { column_name: 'checksum', type: 'character varying(64)', is_nullable: 'NO', column_default: null },
      { column_name: 'finished_at', type: 'timestamp with time zone', is_nullable: 'YES', column_default: null },
      { column_name: 'migration_name', type: 'character varying(255)', is_nullable: 'NO', column_default: null },
      { column_name: 'logs', type: 'text', is_nullable: 'YES', column_default: null },
      { column_name: 'rolled_back_at', type: 'timestamp with time zone', is_nullable: 'YES', column_default: null },
      { column_name: 'started_at', type: 'timestamp with time zone', is_nullable: 'NO', column_default: 'now()' },
      { column_name: 'applied_steps_count', type: 'integer', is_nullable: 'NO', column_default: '0' },
    ]);
  });

  it('applies nothing when run again', async () => {
    const messages: string[] = [];
    const result = await migrate({
      databaseUrl: db.databaseUrl,
      migrationsDir: fixtureMigrationsDir,
      logger: { info: (m) => messages.push(m) },
    });
    expect(result.applied).toEqual([]);
    expect(messages).toEqual([`schema "${db.schema}" is up to date (2 migrations)`]);
    expect(await migrationRows(db.databaseUrl, db.schema)).toHaveLength(2);
  });

  it('serializes concurrent runs on one schema: each migration is applied exactly once', async () => {
    const concurrent = schemas.create();
    const dir = await schemas.copyMigrations();
    // a slow third migration widens the window in which unsynchronised runners would collide
    await addMigration(dir, '20250103000000_slow', 'SELECT pg_sleep(0.3);\nCREATE TABLE "slow_marker" ("id" INTEGER);\n');
    const runs = await Promise.all(
      [1, 2, 3, 4].map(() => migrate({ databaseUrl: concurrent.databaseUrl, migrationsDir: dir })),
    );
    const applied = runs.flatMap((r) => r.applied).sort();
    expect(applied).toEqual([...fixtureMigrationNames, '20250103000000_slow']);
    // one runner did all the work, the others found nothing left
    expect(runs.filter((r) => r.applied.length === 3)).toHaveLength(1);
    expect(runs.filter((r) => r.applied.length === 0)).toHaveLength(3);
    const rows = await migrationRows(concurrent.databaseUrl, concurrent.schema);
    expect(rows.map((r) => r.migration_name)).toEqual([...fixtureMigrationNames, '20250103000000_slow']);
  });

  it('applies migrations added later, in name order', async () => {
    const later = schemas.create();
    const dir = await schemas.copyMigrations();
    await migrate({ databaseUrl: later.databaseUrl, migrationsDir: dir });
    await addMigration(dir, '20250105000000_second', 'ALTER TABLE "customer" ADD COLUMN "b" INTEGER;');
    await addMigration(dir, '20250104000000_first', 'ALTER TABLE "customer" ADD COLUMN "a" INTEGER;');
    await fs.writeFile(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
    const result = await migrate({ databaseUrl: later.databaseUrl, migrationsDir: dir });
    expect(result.applied).toEqual(['20250104000000_first', '20250105000000_second']);
  });

  it('refuses to run when an applied migration was edited, naming it', async () => {
    const edited = schemas.create();
    const dir = await schemas.copyMigrations();
    await migrate({ databaseUrl: edited.databaseUrl, migrationsDir: dir });
    await addMigration(dir, '20250109000000_pending', 'CREATE TABLE "never_applied" ("id" INTEGER);');
    await fs.appendFile(path.join(dir, '20250101000000_customers', 'migration.sql'), '\n-- a harmless comment\n');
    await expect(migrate({ databaseUrl: edited.databaseUrl, migrationsDir: dir })).rejects.toThrow(
      /migration "20250101000000_customers" was modified after it was applied/,
    );
    expect(await tableExists(edited.databaseUrl, edited.schema, 'never_applied')).toBe(false);
  });

  it('accepts an earlier content listed in previous-checksums and records the current checksum; any other edit is still refused', async () => {
    const moved = schemas.create();
    const dir = await schemas.copyMigrations();
    await migrate({ databaseUrl: moved.databaseUrl, migrationsDir: dir });
    const file = path.join(dir, '20250101000000_customers', 'migration.sql');
    const before = await sha256OfFile(file);
    await fs.appendFile(file, '\n-- part of this SQL moved to a shared migration set\n');
    await fs.writeFile(
      path.join(dir, '20250101000000_customers', 'previous-checksums'),
      `# the content before the move\n${before}\n`,
    );
    const messages: string[] = [];
    const result = await migrate({ databaseUrl: moved.databaseUrl, migrationsDir: dir, logger: { info: (m) => messages.push(m) } });
    expect(result.applied).toEqual([]);
    expect(messages[0]).toMatch(/20250101000000_customers had an accepted earlier content/);
    const rows = await migrationRows(moved.databaseUrl, moved.schema);
    expect(rows.find((r) => r.migration_name === '20250101000000_customers')!.checksum).toBe(await sha256OfFile(file));

    await fs.appendFile(file, '\n-- an edit nobody listed\n');
    await expect(migrate({ databaseUrl: moved.databaseUrl, migrationsDir: dir })).rejects.toThrow(
      /migration "20250101000000_customers" was modified after it was applied/,
    );
  });

  it('applies the `before` sets first, recorded as <set>:<folder>, then the own migrations; later ones of a set are applied too', async () => {
    const shared = schemas.create();
    const busDir = await fs.mkdtemp(path.join(tmpdir(), 'bus-migrations-'));
    await addMigration(busDir, '20990101000000_messages', 'CREATE TABLE IF NOT EXISTS "message" ("id" INTEGER);');
    const first = await migrate({ databaseUrl: shared.databaseUrl, migrationsDir: fixtureMigrationsDir, before: [{ name: 'bus', migrationsDir: busDir }] });
    // the set's folder sorts after the service's by date, yet it goes first
    expect(first.applied).toEqual(['bus:20990101000000_messages', ...fixtureMigrationNames]);
    expect(await tableExists(shared.databaseUrl, shared.schema, 'message')).toBe(true);

    await addMigration(busDir, '20990102000000_more', 'ALTER TABLE "message" ADD COLUMN "body" TEXT;');
    const second = await migrate({ databaseUrl: shared.databaseUrl, migrationsDir: fixtureMigrationsDir, before: [{ name: 'bus', migrationsDir: busDir }] });
    expect(second.applied).toEqual(['bus:20990102000000_more']);
    // without the set, its recorded migrations have no folder: refused rather than silently ignored
    await expect(migrate({ databaseUrl: shared.databaseUrl, migrationsDir: fixtureMigrationsDir })).rejects.toThrow(
      /migration "bus:20990101000000_messages" is recorded as applied .* but its folder is missing/,
    );
    await expect(
      migrate({ databaseUrl: shared.databaseUrl, migrationsDir: fixtureMigrationsDir, before: [{ name: 'Bad Name', migrationsDir: busDir }] }),
    ).rejects.toThrow(/bad migration set name/);
  });

  it("refuses to run when an applied migration's folder is missing, naming it", async () => {
    const missing = schemas.create();
    const dir = await schemas.copyMigrations();
    await migrate({ databaseUrl: missing.databaseUrl, migrationsDir: dir });
    await fs.rm(path.join(dir, '20250102000000_addresses'), { recursive: true });
    await expect(migrate({ databaseUrl: missing.databaseUrl, migrationsDir: dir })).rejects.toThrow(
      /migration "20250102000000_addresses" is recorded as applied .* but its folder is missing/,
    );
  });

  it('rolls a failing migration back completely, records nothing for it, and names it', async () => {
    const failing = schemas.create();
    const dir = await schemas.copyMigrations();
    const broken = '20250103000000_broken';
    await addMigration(
      dir,
      broken,
      'CREATE TABLE "half_done" ("id" INTEGER);\nINSERT INTO "half_done" VALUES (1);\nINSERT INTO "no_such_table" VALUES (1);\n',
    );
    await addMigration(dir, '20250104000000_after', 'CREATE TABLE "after_broken" ("id" INTEGER);');

    const error = await migrate({ databaseUrl: failing.databaseUrl, migrationsDir: dir }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^migration "20250103000000_broken" failed and was rolled back: relation "no_such_table" does not exist \(code 42P01/,
    );
    // the migrations before it are applied and recorded; it and the ones after are not
    expect(await tableExists(failing.databaseUrl, failing.schema, 'customer')).toBe(true);
    expect(await tableExists(failing.databaseUrl, failing.schema, 'half_done')).toBe(false);
    expect(await tableExists(failing.databaseUrl, failing.schema, 'after_broken')).toBe(false);
    const rows = await migrationRows(failing.databaseUrl, failing.schema);
    expect(rows.map((r) => r.migration_name)).toEqual(fixtureMigrationNames);

    // fixing the migration lets the next run apply it and the rest
    await fs.writeFile(path.join(dir, broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER);\n');
    const result = await migrate({ databaseUrl: failing.databaseUrl, migrationsDir: dir });
    expect(result.applied).toEqual([broken, '20250104000000_after']);
  });

  it('refuses to run while a migration that failed earlier is unresolved, until it is marked rolled back', async () => {
    const stuck = schemas.create();
    const dir = await schemas.copyMigrations();
    await migrate({ databaseUrl: stuck.databaseUrl, migrationsDir: dir });
    await addMigration(dir, '20250103000000_retry', 'CREATE TABLE "retried" ("id" INTEGER);');
    // what `prisma migrate deploy` leaves behind after a failure
    await withClient(stuck.databaseUrl, stuck.schema, (c) =>
      c.query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at, applied_steps_count)
         VALUES (gen_random_uuid()::text, 'x', '20250103000000_retry', 'boom', now(), 0)`,
      ),
    );
    await expect(migrate({ databaseUrl: stuck.databaseUrl, migrationsDir: dir })).rejects.toThrow(
      /migration "20250103000000_retry" failed earlier in schema .* and was never resolved/,
    );
    await withClient(stuck.databaseUrl, stuck.schema, (c) =>
      c.query(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE finished_at IS NULL`),
    );
    const result = await migrate({ databaseUrl: stuck.databaseUrl, migrationsDir: dir });
    expect(result.applied).toEqual(['20250103000000_retry']);
  });

  it('validates the schema name before touching the database', async () => {
    const bad = 'postgresql://postgres@127.0.0.1:5432/postgres?schema=Bad%22Name';
    await expect(migrate({ databaseUrl: bad, migrationsDir: fixtureMigrationsDir })).rejects.toThrow(
      /invalid schema name "Bad\\"Name"/,
    );
  });

  it('says which migration folder lacks migration.sql', async () => {
    const dir = await schemas.copyMigrations();
    await fs.mkdir(path.join(dir, '20250103000000_empty'));
    await expect(readMigrations(dir)).rejects.toThrow(/migration "20250103000000_empty" has no readable migration.sql/);
  });

  it('derives a distinct 64-bit lock key per schema', () => {
    expect(migrationLockKey('checkout')).toBe(migrationLockKey('checkout'));
    expect(migrationLockKey('checkout')).not.toBe(migrationLockKey('b2b'));
    const key = BigInt(migrationLockKey('vendor'));
    expect(key >= -(2n ** 63n) && key < 2n ** 63n).toBe(true);
  });
});
