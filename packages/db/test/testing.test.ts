import { Client } from 'pg';
import { DEFAULT_TEST_DATABASE_URL, connectionStringWithoutSchema, createTestSchema, migrate, schemaFromUrl } from '../src';
import { fixtureMigrationsDir } from './helpers';

async function schemaExists(schema: string): Promise<boolean> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    return rows.length === 1;
  } finally {
    await client.end();
  }
}

describe('createTestSchema', () => {
  it('makes a unique lowercase schema name with the prefix, and a URL pointing at it', () => {
    const a = createTestSchema(undefined, 'Checkout');
    const b = createTestSchema(undefined, 'Checkout');
    expect(a.schema).toMatch(/^checkout_[0-9a-f]{12}$/);
    expect(a.schema).not.toBe(b.schema);
    expect(schemaFromUrl(a.databaseUrl)).toBe(a.schema);
    expect(connectionStringWithoutSchema(a.databaseUrl)).toBe(process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL);
  });

  it('defaults to the prefix t and accepts another base URL (replacing its schema)', () => {
    const s = createTestSchema('postgresql://u@db.example:5433/app?schema=public&sslmode=disable');
    expect(s.schema).toMatch(/^t_[0-9a-f]{12}$/);
    expect(s.databaseUrl).toBe(`postgresql://u@db.example:5433/app?sslmode=disable&schema=${s.schema}`);
  });

  it('refuses a prefix that would make an invalid schema name', () => {
    expect(() => createTestSchema(undefined, 'bad-prefix')).toThrow(/invalid schema name/);
  });

  it('drop removes the schema with everything in it, and is harmless when it was never created', async () => {
    const s = createTestSchema(undefined, 'testing');
    await s.drop();
    await migrate({ databaseUrl: s.databaseUrl, migrationsDir: fixtureMigrationsDir });
    expect(await schemaExists(s.schema)).toBe(true);
    await s.drop();
    expect(await schemaExists(s.schema)).toBe(false);
  });
});
