import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { assertSchemaName, connectionStringWithoutSchema, quoteIdent, schemaFromUrl } from './url';

/** What `createPrisma` hands to the generated client's constructor. */
export interface PrismaClientOptionsWithAdapter {
  adapter: PrismaPg;
}

/** The generated `PrismaClient` class (from a `prisma-client` generator's `client.ts`). */
export type PrismaClientClass<T> = new (options: PrismaClientOptionsWithAdapter) => T;

/** What every generated client has and createPrisma relies on. */
interface Disconnectable {
  $disconnect(): Promise<void>;
}

export interface SqlPoolOptions {
  /** Connections at most (pg's default 10). */
  max?: number;
}

/**
 * A `pg` pool on `databaseUrl` whose every connection has `search_path` = the URL's `?schema=`
 * (default `public`), so plain SQL names the service's own tables unqualified.
 */
export function createSqlPool(databaseUrl: string, options: SqlPoolOptions = {}): pg.Pool {
  const schema = assertSchemaName(schemaFromUrl(databaseUrl));
  const pool = new pg.Pool({
    connectionString: connectionStringWithoutSchema(databaseUrl),
    options: `-c search_path=${quoteIdent(schema)}`,
    max: options.max ?? 10,
  });
  // an idle connection that breaks (server restart) is dropped by the pool; the next query
  // reports the failure to its caller. Without a listener the 'error' event would end the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The `@prisma/adapter-pg` adapter for `databaseUrl` over its own pool (createSqlPool): Prisma's
 * queries are qualified with the URL's `?schema=`, and `$queryRaw`/`$executeRaw` can use
 * unqualified table names too.
 */
export function createPrismaAdapter(databaseUrl: string, pool: pg.Pool = createSqlPool(databaseUrl)): PrismaPg {
  const schema = assertSchemaName(schemaFromUrl(databaseUrl));
  return new PrismaPg(pool, { schema });
}

const pools = new WeakMap<object, pg.Pool>();

/**
 * `new PrismaClientClass({ adapter })` for `databaseUrl` (see `createPrismaAdapter`). The client's
 * connection pool is also reachable with `sqlPoolOf(client)`, for the few hot statements that run
 * as plain prepared SQL (Prisma's per-call cost is several times pg's); `$disconnect()` also ends it.
 *
 *   import { PrismaClient } from './generated/prisma/client';
 *   const prisma = createPrisma(PrismaClient, config.DATABASE_URL);
 */
export function createPrisma<T extends Disconnectable>(PrismaClientClass: PrismaClientClass<T>, databaseUrl: string, options: SqlPoolOptions = {}): T {
  const pool = createSqlPool(databaseUrl, options);
  const client = new PrismaClientClass({ adapter: createPrismaAdapter(databaseUrl, pool) });
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  pools.set(client, pool);
  return client;
}

/** A service's pg pool: the one its Prisma client runs on (sqlPoolOf). */
export type SqlPool = pg.Pool;

/** The pg pool under a client made by createPrisma (the same connections Prisma uses). */
export function sqlPoolOf(client: object): SqlPool {
  const pool = pools.get(client);
  if (!pool) throw new Error('sqlPoolOf: this client was not made by createPrisma');
  return pool;
}
