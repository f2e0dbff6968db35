import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client, type DatabaseError } from 'pg';
import { assertSchemaName, connectionStringWithoutSchema, quoteIdent, schemaFromUrl } from './url';

/** Anything with an `info(message)` method: a pino logger, `console`, a test spy. */
export interface MigrateLogger {
  info(message: string): void;
}

export interface MigrateOptions {
  /** PostgreSQL URL; `?schema=` names the schema to migrate (default `public`). */
  databaseUrl: string;
  /** Folder holding `<YYYYMMDDHHMMSS>_<name>/migration.sql` folders (Prisma's layout). */
  migrationsDir: string;
  /**
   * Migration sets applied before `migrationsDir`'s, in this order, into the same schema (e.g. the
   * messaging tables of @pasar/bus). Each is recorded as `<name>:<folder>` in `_prisma_migrations`.
   */
  before?: MigrationSet[];
  /**
   * Folder of SQL function source files (`<name>.sql`, each a `CREATE OR REPLACE FUNCTION`),
   * applied after every migration on each run. Default: functionsDirFor(migrationsDir).
   */
  functionsDir?: string;
  logger?: MigrateLogger;
}

/** A folder of migrations owned by a package rather than the service, e.g. `{ name: 'bus', migrationsDir }`. */
export interface MigrationSet {
  name: string;
  migrationsDir: string;
  /** Its SQL function source files; default functionsDirFor(migrationsDir). */
  functionsDir?: string;
}

/** One SQL function source file. */
export interface FunctionFile {
  /** `<set>:<file>` for a set's function, else the file name. */
  name: string;
  sql: string;
}

/**
 * Where the SQL functions of a migrations folder live: `sql/functions` in the package that holds
 * it (`apps/checkout/prisma/migrations` → `apps/checkout/sql/functions`,
 * `packages/bus/migrations` → `packages/bus/sql/functions`).
 */
export function functionsDirFor(migrationsDir: string): string {
  const parent = path.dirname(path.resolve(migrationsDir));
  const root = path.basename(parent) === 'prisma' ? path.dirname(parent) : parent;
  return path.join(root, 'sql', 'functions');
}

/**
 * The SQL function source files of `functionsDir` (`*.sql`, by name); none when it does not exist.
 * Each must define its function with CREATE OR REPLACE, so that applying it again is harmless.
 */
export async function readFunctions(functionsDir: string): Promise<FunctionFile[]> {
  let names: string[];
  try {
    names = (await fs.readdir(functionsDir)).filter((n) => n.endsWith('.sql')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: FunctionFile[] = [];
  for (const name of names) {
    const sql = await fs.readFile(path.join(functionsDir, name), 'utf8');
    if (!/CREATE OR REPLACE FUNCTION/i.test(sql) || /^\s*CREATE FUNCTION/im.test(sql)) {
      throw new Error(`${path.join(functionsDir, name)}: a function source file defines its function with CREATE OR REPLACE FUNCTION`);
    }
    files.push({ name, sql });
  }
  return files;
}

export interface MigrateResult {
  /** Names of the migrations this call applied, in order (empty when the schema was up to date). */
  applied: string[];
}

/** One migration folder on disk. */
export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
  /**
   * Checksums of earlier contents of this migration that databases may have recorded and that are
   * still accepted (read from `previous-checksums` in the folder, one sha256 per line, `#` comments).
   * Only for a reviewed move of SQL elsewhere (the bus tables moved to @pasar/bus); the recorded
   * checksum is then updated to the current one.
   */
  previousChecksums: string[];
}

export const PREVIOUS_CHECKSUMS_FILE = 'previous-checksums';

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  started_at: Date;
}

export const MIGRATIONS_TABLE = '_prisma_migrations';

/** Prisma's checksum of a migration: sha256 (hex) of the migration.sql bytes. */
export function migrationChecksum(sql: string | Buffer): string {
  return createHash('sha256').update(sql).digest('hex');
}

/**
 * The session advisory lock key for migrating `schema`: the first 8 bytes of
 * sha256("pasar.db.migrate:" + schema) as a signed 64-bit integer (decimal string for pg).
 */
export function migrationLockKey(schema: string): string {
  return createHash('sha256').update(`pasar.db.migrate:${schema}`).digest().readBigInt64BE(0).toString();
}

/** The migration folders of `migrationsDir`, sorted by name (files such as migration_lock.toml are ignored). */
export async function readMigrations(migrationsDir: string): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await fs.readdir(migrationsDir, { withFileTypes: true });
  } catch (error) {
    throw new Error(`cannot read migrations folder ${migrationsDir}: ${(error as Error).message}`, { cause: error });
  }
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const migrations: MigrationFile[] = [];
  for (const name of names) {
    const file = path.join(migrationsDir, name, 'migration.sql');
    let content: Buffer;
    try {
      content = await fs.readFile(file);
    } catch (error) {
      throw new Error(`migration "${name}" has no readable migration.sql (${file})`, { cause: error });
    }
    migrations.push({
      name,
      sql: content.toString('utf8'),
      checksum: migrationChecksum(content),
      previousChecksums: await readPreviousChecksums(path.join(migrationsDir, name, PREVIOUS_CHECKSUMS_FILE)),
    });
  }
  return migrations;
}

async function readPreviousChecksums(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '')
    .map((line) => {
      if (!/^[0-9a-f]{64}$/.test(line)) throw new Error(`${file}: "${line}" is not a sha256 checksum`);
      return line;
    });
}

function describePgError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const pgError = error as Partial<DatabaseError>;
  const extras = [
    pgError.code ? `code ${pgError.code}` : '',
    pgError.position ? `at character ${pgError.position}` : '',
    pgError.detail ? `detail: ${pgError.detail}` : '',
  ].filter((s) => s !== '');
  return extras.length > 0 ? `${error.message} (${extras.join(', ')})` : error.message;
}

/**
 * Applies the pending migrations of `migrationsDir` to the URL's schema and records them in
 * `<schema>._prisma_migrations` exactly as Prisma does, so `prisma migrate status` elsewhere agrees.
 *
 * - creates the schema when missing;
 * - holds a session advisory lock (per schema) for the whole run: concurrent callers serialize and
 *   the later ones find nothing left to do;
 * - refuses to run when an applied migration's file changed (checksum), when an applied
 *   migration's folder is gone, or when a migration failed earlier and was never resolved;
 * - applies each pending migration in its own transaction with `SET LOCAL search_path` to the
 *   schema (write unqualified table names); a failing migration rolls back completely, nothing is
 *   recorded, and the error names it;
 * - then applies the SQL function source files (readFunctions; the bus's first) in one
 *   transaction, every run: the files are where a function's current body lives, and
 *   CREATE OR REPLACE makes applying an unchanged one harmless. A function whose signature or
 *   return type changes needs a migration that drops the old one first.
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const { databaseUrl, migrationsDir, logger } = options;
  const schema = assertSchemaName(schemaFromUrl(databaseUrl));
  const qSchema = quoteIdent(schema);
  const table = `${qSchema}.${quoteIdent(MIGRATIONS_TABLE)}`;
  const migrations: MigrationFile[] = [];
  for (const set of options.before ?? []) {
    if (!/^[a-z][a-z0-9_-]*$/.test(set.name)) throw new Error(`bad migration set name "${set.name}"`);
    migrations.push(...(await readMigrations(set.migrationsDir)).map((m) => ({ ...m, name: `${set.name}:${m.name}` })));
  }
  migrations.push(...(await readMigrations(migrationsDir)));
  const functions: FunctionFile[] = [];
  for (const set of options.before ?? []) {
    functions.push(...(await readFunctions(set.functionsDir ?? functionsDirFor(set.migrationsDir))).map((f) => ({ ...f, name: `${set.name}:${f.name}` })));
  }
  functions.push(...(await readFunctions(options.functionsDir ?? functionsDirFor(migrationsDir))));

  const client = new Client({ connectionString: connectionStringWithoutSchema(databaseUrl) });
  // A connection dropped while idle must not crash the process; the pending query rejects anyway.
  client.on('error', () => undefined);
  await client.connect();
  const lockKey = migrationLockKey(schema);
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [lockKey]);
    try {
      const result = await migrateLocked(client, { schema, qSchema, table, migrations, logger });
      await applyFunctions(client, qSchema, functions);
      return result;
    } finally {
      // Ending the session releases the lock anyway; never let a failed unlock hide the real error.
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [lockKey]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}

interface LockedRun {
  schema: string;
  qSchema: string;
  table: string;
  migrations: MigrationFile[];
  logger?: MigrateLogger;
}

async function migrateLocked(client: Client, run: LockedRun): Promise<MigrateResult> {
  const { schema, qSchema, table, migrations, logger } = run;
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${qSchema}`);
  await client.query(`
    CREATE TABLE IF NOT EXISTS ${table} (
      "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum"            VARCHAR(64) NOT NULL,
      "finished_at"         TIMESTAMPTZ,
      "migration_name"      VARCHAR(255) NOT NULL,
      "logs"                TEXT,
      "rolled_back_at"      TIMESTAMPTZ,
      "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
  const { rows } = await client.query<MigrationRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at, started_at FROM ${table} ORDER BY started_at, migration_name`,
  );

  const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
  if (failed) {
    throw new Error(
      `migration "${failed.migration_name}" failed earlier in schema "${schema}" (started ${failed.started_at.toISOString()}) ` +
        `and was never resolved: repair the schema by hand, then mark it rolled back with ` +
        `UPDATE ${table} SET rolled_back_at = now() WHERE migration_name = '${failed.migration_name}' AND finished_at IS NULL`,
    );
  }

  const onDisk = new Map(migrations.map((m) => [m.name, m]));
  const applied = new Map<string, MigrationRow>();
  for (const row of rows) {
    if (row.finished_at !== null && row.rolled_back_at === null) applied.set(row.migration_name, row);
  }
  for (const row of applied.values()) {
    const file = onDisk.get(row.migration_name);
    if (!file) {
      throw new Error(
        `migration "${row.migration_name}" is recorded as applied in schema "${schema}" but its folder is missing from the migrations directory`,
      );
    }
    if (file.checksum !== row.checksum && file.previousChecksums.includes(row.checksum)) {
      await client.query(`UPDATE ${table} SET checksum = $2 WHERE migration_name = $1 AND checksum = $3`, [
        row.migration_name,
        file.checksum,
        row.checksum,
      ]);
      logger?.info(`schema "${schema}": ${row.migration_name} had an accepted earlier content; recorded its current checksum`);
    } else if (file.checksum !== row.checksum) {
      throw new Error(
        `migration "${row.migration_name}" was modified after it was applied to schema "${schema}" ` +
          `(checksum ${row.checksum} recorded, ${file.checksum} on disk): never edit an applied migration, add a new one`,
      );
    }
  }

  const pending = migrations.filter((m) => !applied.has(m.name));
  const done: string[] = [];
  for (const migration of pending) {
    await applyOne(client, table, qSchema, migration);
    done.push(migration.name);
    logger?.info(`migrated schema "${schema}": applied ${migration.name}`);
  }
  if (done.length === 0) logger?.info(`schema "${schema}" is up to date (${migrations.length} migrations)`);
  return { applied: done };
}

async function applyOne(client: Client, table: string, qSchema: string, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO ${qSchema}`);
    await client.query(
      `INSERT INTO ${table} (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, clock_timestamp(), 0)`,
      [id, migration.checksum, migration.name],
    );
    try {
      await client.query(migration.sql);
    } catch (error) {
      throw new Error(`migration "${migration.name}" failed and was rolled back: ${describePgError(error)}`, {
        cause: error,
      });
    }
    await client.query(`UPDATE ${table} SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`, [
      id,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Applies the function source files, all or none, with the schema as search_path. */
async function applyFunctions(client: Client, qSchema: string, functions: readonly FunctionFile[]): Promise<void> {
  if (functions.length === 0) return;
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO ${qSchema}`);
    for (const fn of functions) {
      try {
        await client.query(fn.sql);
      } catch (error) {
        throw new Error(`SQL function file "${fn.name}" failed and nothing of the files was applied: ${describePgError(error)}`, { cause: error });
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
