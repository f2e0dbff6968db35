import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { connectionStringWithoutSchema, createTestSchema, type TestSchema } from '../src';

export const fixtureMigrationsDir = path.join(__dirname, 'fixture', 'prisma', 'migrations');
export const fixtureMigrationNames = ['20250101000000_customers', '20250102000000_addresses'];

/** Schemas made by a test file, dropped together in afterAll. */
export class Schemas {
  private readonly made: TestSchema[] = [];
  private readonly dirs: string[] = [];

  create(prefix = 'db'): TestSchema {
    const schema = createTestSchema(undefined, prefix);
    this.made.push(schema);
    return schema;
  }

  /** A private copy of the fixture migrations (tests edit, add and remove folders in it). */
  async copyMigrations(): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pasar-db-migrations-'));
    await fs.cp(fixtureMigrationsDir, dir, { recursive: true });
    this.dirs.push(dir);
    return dir;
  }

  async dropAll(): Promise<void> {
    await Promise.all(this.made.map((s) => s.drop()));
    await Promise.all(this.dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  }
}

export async function addMigration(dir: string, name: string, sql: string): Promise<void> {
  await fs.mkdir(path.join(dir, name));
  await fs.writeFile(path.join(dir, name, 'migration.sql'), sql);
}

export async function sha256OfFile(file: string): Promise<string> {
  return createHash('sha256').update(await fs.readFile(file)).digest('hex');
}

/** Runs `fn` with a pg client whose search_path is the URL's schema. */
export async function withClient<T>(databaseUrl: string, schema: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: connectionStringWithoutSchema(databaseUrl) });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    return await fn(client);
  } finally {
    await client.end();
  }
}
