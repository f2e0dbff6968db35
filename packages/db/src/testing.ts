import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { assertSchemaName, connectionStringWithoutSchema, quoteIdent, withSchema } from './url';

export const DEFAULT_TEST_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TestSchema {
  /** The unique schema name, e.g. `checkout_3f9a1c0b2e7d`. */
  schema: string;
  /** `baseUrl` pointing at `schema` (`?schema=`), for `migrate`, `createPrisma`, `checkDrift`. */
  databaseUrl: string;
  /** `DROP SCHEMA IF EXISTS … CASCADE`; call it in `afterAll`. */
  drop(): Promise<void>;
}

/**
 * A fresh schema name for one test file, so suites run in parallel on one database.
 * Nothing is created yet: `migrate({ databaseUrl, migrationsDir })` creates the schema.
 *
 *   const db = createTestSchema(undefined, 'checkout');
 *   beforeAll(() => migrate({ databaseUrl: db.databaseUrl, migrationsDir }));
 *   afterAll(() => db.drop());
 */
export function createTestSchema(
  baseUrl: string = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL,
  prefix = 't',
): TestSchema {
  const random = randomBytes(6).toString('hex');
  const schema = assertSchemaName(`${prefix.toLowerCase()}_${random}`);
  const databaseUrl = withSchema(baseUrl, schema);
  return {
    schema,
    databaseUrl,
    async drop() {
      const client = new Client({ connectionString: connectionStringWithoutSchema(databaseUrl) });
      client.on('error', () => undefined);
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
