import './fixture/ensure-generated';
import { Client } from 'pg';
import { connectionStringWithoutSchema, createPrisma, createSqlPool, migrate, sqlPoolOf } from '../src';
import { Prisma, PrismaClient } from './fixture/generated/client';
import { Schemas, fixtureMigrationsDir } from './helpers';

const schemas = new Schemas();
const db = schemas.create('prisma');
let prisma: PrismaClient;

beforeAll(async () => {
  await migrate({ databaseUrl: db.databaseUrl, migrationsDir: fixtureMigrationsDir });
  prisma = createPrisma(PrismaClient, db.databaseUrl);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await schemas.dropAll();
});

describe('createPrisma', () => {
  it('creates and reads rows through the generated client in the URL schema', async () => {
    const created = await prisma.customer.create({
      data: {
        email: 'siti@example.my',
        name: 'Siti',
        balance: new Prisma.Decimal('12.50'),
        lifetime: 9007199254740993n,
        profile: { tier: 'gold', tags: ['a', 'b'] },
        addresses: { create: [{ line1: 'Jalan Ampang 1', city: 'Kuala Lumpur', kind: 'WORK' }] },
      },
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);

    const read = await prisma.customer.findUniqueOrThrow({
      where: { email: 'siti@example.my' },
      include: { addresses: true },
    });
    expect(read.balance).toBeInstanceOf(Prisma.Decimal);
    expect(read.balance.toFixed(2)).toBe('12.50');
    expect(read.balance.equals(new Prisma.Decimal('12.5'))).toBe(true);
    expect(read.lifetime).toBe(9007199254740993n);
    expect(read.visits).toBe(0);
    expect(read.active).toBe(true);
    expect(read.rating).toBeNull();
    expect(read.profile).toEqual({ tier: 'gold', tags: ['a', 'b'] });
    expect(read.createdAt).toBeInstanceOf(Date);
    expect(read.addresses).toEqual([
      expect.objectContaining({ line1: 'Jalan Ampang 1', city: 'Kuala Lumpur', kind: 'WORK', postcode: null, verifiedAt: null }),
    ]);

    // the row is in the test schema, stored as numeric(12,2)
    const client = new Client({ connectionString: connectionStringWithoutSchema(db.databaseUrl) });
    await client.connect();
    try {
      const { rows } = await client.query<{ balance: string }>(
        `SELECT balance::text AS balance FROM "${db.schema}".customer WHERE id = $1`,
        [created.id],
      );
      expect(rows).toEqual([{ balance: '12.50' }]);
    } finally {
      await client.end();
    }
  });

  it('sets search_path to the schema so raw SQL can use unqualified names', async () => {
    const rows = await prisma.$queryRaw<{ schema: string; count: bigint }[]>`
      SELECT current_schema() AS schema, count(*) AS count FROM customer`;
    expect(rows).toEqual([{ schema: db.schema, count: 1n }]);
  });

  it('runs interactive transactions against the schema', async () => {
    await prisma.$transaction(async (tx) => {
      const customer = await tx.customer.findFirstOrThrow();
      await tx.customer.update({ where: { id: customer.id }, data: { visits: { increment: 2 } } });
    });
    const again = await prisma.customer.findFirstOrThrow();
    expect(again.visits).toBe(2);
  });

  it('shares its connection pool as sqlPoolOf: plain SQL in the same schema, on the same connections', async () => {
    const pool = sqlPoolOf(prisma);
    const { rows } = await pool.query<{ schema: string; count: string }>({ name: 'count-customers', text: 'SELECT current_schema() AS schema, count(*) AS count FROM customer' });
    expect(rows).toEqual([{ schema: db.schema, count: '1' }]);
    expect(pool.totalCount).toBeGreaterThan(0); // Prisma's own queries opened them
    expect(() => sqlPoolOf({})).toThrow(/not made by createPrisma/);
  });

  it('ends the pool on $disconnect', async () => {
    const other = createPrisma(PrismaClient, db.databaseUrl);
    await other.customer.count();
    const pool = sqlPoolOf(other);
    await other.$disconnect();
    expect(pool.ended).toBe(true);
    await expect(pool.query('SELECT 1')).rejects.toThrow();
  });
});

describe('createSqlPool', () => {
  it('gives a connection idle in a transaction two minutes by default', async () => {
    const pool = createSqlPool(db.databaseUrl);
    try {
      const { rows } = await pool.query<{ timeout: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS timeout");
      expect(rows).toEqual([{ timeout: '2min' }]);
    } finally {
      await pool.end();
    }
    expect(() => createSqlPool(db.databaseUrl, { idleInTransactionMs: 0 })).toThrow(/idleInTransactionMs/);
  });

  it('a transaction left idle past idleInTransactionMs is ended by the server: its locks go to the next taker, and its holder gets an error, not a crash', async () => {
    const pool = createSqlPool(db.databaseUrl, { idleInTransactionMs: 300 });
    const other = new Client({ connectionString: connectionStringWithoutSchema(db.databaseUrl) });
    await other.connect();
    const key = Math.floor(Math.random() * 2 ** 31);
    try {
      const holder = await pool.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [key]);
      await holder.query(`INSERT INTO customer (id, email, name) VALUES (gen_random_uuid(), 'idle@example.my', 'Idle')`);
      // the holder sends nothing more; the other connection waits for the lock until the server ends that transaction
      const started = Date.now();
      await other.query('SELECT pg_advisory_lock($1)', [key]);
      expect(Date.now() - started).toBeLessThan(10_000);
      await other.query('SELECT pg_advisory_unlock($1)', [key]);
      // nothing of it was committed; the holder learns at its next statement, and the pool drops it
      expect((await other.query(`SELECT count(*)::int AS n FROM "${db.schema}".customer WHERE email = 'idle@example.my'`)).rows).toEqual([{ n: 0 }]);
      await expect(holder.query('COMMIT')).rejects.toThrow();
      holder.release(true);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await other.end();
      await pool.end();
    }
  });
});
