import { PrismaPg } from '@prisma/adapter-pg';
import { assertSchemaName, connectionStringWithoutSchema, quoteIdent, schemaFromUrl } from './url';

/** What `createPrisma` hands to the generated client's constructor. */
export interface PrismaClientOptionsWithAdapter {
  adapter: PrismaPg;
}

/** The generated `PrismaClient` class (from a `prisma-client` generator's `client.ts`). */
export type PrismaClientClass<T> = new (options: PrismaClientOptionsWithAdapter) => T;

/**
 * The `@prisma/adapter-pg` adapter for `databaseUrl`: Prisma's queries are qualified with the URL's
 * `?schema=` (default `public`), and every pooled connection also gets `search_path` = that schema,
 * so `$queryRaw`/`$executeRaw` can use unqualified table names too.
 */
export function createPrismaAdapter(databaseUrl: string): PrismaPg {
  const schema = assertSchemaName(schemaFromUrl(databaseUrl));
  return new PrismaPg(
    {
      connectionString: connectionStringWithoutSchema(databaseUrl),
      options: `-c search_path=${quoteIdent(schema)}`,
    },
    { schema },
  );
}

/**
 * `new PrismaClientClass({ adapter })` for `databaseUrl` (see `createPrismaAdapter`).
 *
 *   import { PrismaClient } from './generated/prisma/client';
 *   const prisma = createPrisma(PrismaClient, config.DATABASE_URL);
 */
export function createPrisma<T>(PrismaClientClass: PrismaClientClass<T>, databaseUrl: string): T {
  return new PrismaClientClass({ adapter: createPrismaAdapter(databaseUrl) });
}
