import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkFunctions, functionsDirFor, migrate } from '../src';
import { Schemas, withClient } from './helpers';

/**
 * SQL functions as source files: migrate applies `sql/functions/<name>.sql` (CREATE OR REPLACE)
 * after the migrations, every run; checkFunctions finds a function that has no file or whose live
 * body is not its file's.
 */

const schemas = new Schemas();
const dirs: string[] = [];
afterAll(async () => {
  await schemas.dropAll();
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

/** A package with prisma/migrations (one table) and sql/functions holding `functions`. */
async function packageWith(functions: Record<string, string>): Promise<{ migrationsDir: string; functionsDir: string }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'pasar-db-functions-'));
  dirs.push(root);
  const migrationsDir = path.join(root, 'prisma', 'migrations');
  await fs.mkdir(path.join(migrationsDir, '20250101000000_counter'), { recursive: true });
  await fs.writeFile(path.join(migrationsDir, '20250101000000_counter', 'migration.sql'), 'CREATE TABLE counter (n int NOT NULL);');
  const functionsDir = path.join(root, 'sql', 'functions');
  await fs.mkdir(functionsDir, { recursive: true });
  for (const [name, sql] of Object.entries(functions)) await fs.writeFile(path.join(functionsDir, `${name}.sql`), sql);
  return { migrationsDir, functionsDir };
}

const answer = (n: number) => `-- answers ${n}\nCREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN ${n};\nEND $$;\n`;
const callAnswer = (databaseUrl: string, schema: string) => withClient(databaseUrl, schema, async (c) => (await c.query<{ n: number }>('SELECT answer() AS n')).rows[0].n);

test('functionsDirFor: sql/functions of the package that holds the migrations', () => {
  expect(functionsDirFor('/repo/apps/checkout/prisma/migrations')).toBe('/repo/apps/checkout/sql/functions');
  expect(functionsDirFor('/repo/packages/bus/migrations')).toBe('/repo/packages/bus/sql/functions');
});

test('the files are applied after the migrations, on every run: an edited file replaces the live function', async () => {
  const { migrationsDir, functionsDir } = await packageWith({ answer: answer(1) });
  const db = schemas.create('fn');
  await migrate({ databaseUrl: db.databaseUrl, migrationsDir });
  expect(await callAnswer(db.databaseUrl, db.schema)).toBe(1);
  expect(await checkFunctions({ databaseUrl: db.databaseUrl, functionsDirs: [functionsDir] })).toEqual([]);

  await fs.writeFile(path.join(functionsDir, 'answer.sql'), answer(2));
  expect(await migrate({ databaseUrl: db.databaseUrl, migrationsDir })).toEqual({ applied: [] });
  expect(await callAnswer(db.databaseUrl, db.schema)).toBe(2);
});

test('checkFunctions: a function without a source file, and one changed by hand, are drift', async () => {
  const { migrationsDir, functionsDir } = await packageWith({ answer: answer(1) });
  const db = schemas.create('fn');
  await migrate({ databaseUrl: db.databaseUrl, migrationsDir });
  await withClient(db.databaseUrl, db.schema, async (c) => {
    await c.query('CREATE FUNCTION only_in_a_migration() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$');
    await c.query(answer(3));
  });
  expect((await checkFunctions({ databaseUrl: db.databaseUrl, functionsDirs: [functionsDir] })).map((p) => p.kind).sort()).toEqual([
    'function-source-differs',
    'function-without-source',
  ]);
  // a file whose function the schema lacks
  await fs.writeFile(path.join(functionsDir, 'missing.sql'), answer(4).replace('answer()', 'missing()'));
  expect((await checkFunctions({ databaseUrl: db.databaseUrl, functionsDirs: [functionsDir] })).map((p) => p.message)).toContain(
    `sql/functions/missing.sql defines no function "missing" in schema "${db.schema}"`,
  );
});

test('a file without CREATE OR REPLACE is refused; a failing file applies none of the files and names itself', async () => {
  const refused = await packageWith({ answer: answer(1).replace('CREATE OR REPLACE', 'CREATE') });
  await expect(migrate({ databaseUrl: schemas.create('fn').databaseUrl, migrationsDir: refused.migrationsDir })).rejects.toThrow(/CREATE OR REPLACE FUNCTION/);

  const broken = await packageWith({ answer: answer(1), zz_broken: 'CREATE OR REPLACE FUNCTION zz_broken() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN; END $$;' });
  const db = schemas.create('fn');
  await expect(migrate({ databaseUrl: db.databaseUrl, migrationsDir: broken.migrationsDir })).rejects.toThrow(/SQL function file "zz_broken.sql" failed/);
  await expect(callAnswer(db.databaseUrl, db.schema)).rejects.toThrow(/does not exist/);
});
