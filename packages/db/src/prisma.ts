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
  /**
   * How long a connection may sit in an open transaction without sending anything before
   * PostgreSQL ends it (its `idle_in_transaction_session_timeout`; default 2 min, far longer than
   * any transaction of ours waits between statements). A process that hung or vanished
   * mid-transaction (its host lost, the network cut) would otherwise hold the transaction's locks
   * and uncommitted rows (an inbox claim, an order's advisory lock) until the server's TCP
   * keepalive noticed, two hours later by default, and the instance that takes its work over would
   * wait for them.
   */
  idleInTransactionMs?: number;
}

/** SqlPoolOptions.idleInTransactionMs's default. */
const IDLE_IN_TRANSACTION_MS = 120_000;

/**
 * A `pg` pool on `databaseUrl` whose every connection has `search_path` = the URL's `?schema=`
 * (default `public`), so plain SQL names the service's own tables unqualified, and ends when left
 * idle in a transaction for `idleInTransactionMs`.
 */
export function createSqlPool(databaseUrl: string, options: SqlPoolOptions = {}): pg.Pool {
  const schema = assertSchemaName(schemaFromUrl(databaseUrl));
  const idleInTransactionMs = options.idleInTransactionMs ?? IDLE_IN_TRANSACTION_MS;
  if (!Number.isInteger(idleInTransactionMs) || idleInTransactionMs < 1) throw new Error(`bad idleInTransactionMs ${idleInTransactionMs}`);
  const pool = new pg.Pool({
    connectionString: connectionStringWithoutSchema(databaseUrl),
    options: `-c search_path=${quoteIdent(schema)} -c idle_in_transaction_session_timeout=${idleInTransactionMs}`,
    max: options.max ?? 10,
  });
  // an idle connection that breaks (server restart) is dropped by the pool; the next query
  // reports the failure to its caller. Without a listener the 'error' event would end the process.
  pool.on('error', () => undefined);
  // the same for a connection taken from the pool that breaks between two of its statements (the
  // server restarted, or ended a transaction left idle): the pool listens only while it is idle,
  // so without this the 'error' event would end the process; its next query fails instead, and
  // its holder releases it broken
  pool.on('connect', (client) => client.on('error', () => undefined));
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
