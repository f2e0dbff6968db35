import { createSqlPool, sqlPoolOf, sqlStateOf, type SqlPool } from '@pasar/db';
import type { PoolClient } from 'pg';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { PrismaClient } from '../generated/prisma/client';
import { OrderBatcher, orderBatcherOf, type BatchEntry, type BatchOutcome } from './order-batch';
import { batchEntryOf, priceOrder } from './place-order';
import { countStatements, SEEDED_ADDRESS, seedCustomer, seedProduct, seedShippingMethod, seedStore, stockOf } from './test-fixtures';

/**
 * The group-commit batcher against the real place_orders. A batch is held in flight by a
 * blocker transaction that locks the product row, so that the orders placed meanwhile queue up.
 */

let t: TestCheckout;
let prisma: PrismaClient;
let blockers: ReturnType<typeof createSqlPool>;

beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
  blockers = createSqlPool(t.checkout.config.DATABASE_URL, { max: 1 });
});
afterAll(async () => {
  await blockers?.end();
  await t?.stop();
});

async function hotProduct(stock: number) {
  const storeId = await seedStore(prisma);
  await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 5 } });
  return seedProduct(prisma, { storeId, stock });
}

/** A priced plain order of `quantity` units of the product, as place_orders takes it. */
async function entry(productId: string, quantity: number): Promise<BatchEntry> {
  const { customerId } = await seedCustomer(prisma);
  const priced = await priceOrder(prisma, {
    customerId,
    lines: [{ productId, quantity }],
    shippingAddress: SEEDED_ADDRESS,
    now: new Date(),
    paymentTtlMs: 60_000,
  });
  return (await batchEntryOf(priced)).entry;
}

/** Holds the product row locked until `release` (the batch in flight waits for it). */
async function lockRow(productId: string): Promise<{ pid: number; release: () => Promise<void> }> {
  const client: PoolClient = await blockers.connect();
  await client.query('BEGIN');
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid FROM product WHERE id = $1 FOR UPDATE', [productId]);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await client.query('COMMIT');
    client.release();
  };
  held.push(release);
  return { pid: rows[0].pid, release };
}

/** Blockers a failed test left: released after it, so that nothing waits for them. */
const held: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const release of held.splice(0)) await release();
});

/** Settles every promise, keeping each outcome or error. */
const settle = (placing: Promise<BatchOutcome>[]) => Promise.all(placing.map((p) => p.then((outcome) => ({ outcome }), (error: unknown) => ({ error }))));

const written = async (e: BatchEntry) => ({
  orders: await prisma.order.count({ where: { id: e.order.id as string } }),
  payments: await prisma.payment.count({ where: { orderId: e.order.id as string } }),
  events: await prisma.outbox.count({ where: { id: e.outbox.id } }),
});

/** Counts the calls of place_orders on a pool (Prisma's queries share it). */
const countCalls = (pool: SqlPool) => countStatements(pool, 'place_orders');

afterEach(() => jest.restoreAllMocks());

test('a lone order goes at once; the orders queued meanwhile go in ONE call, stock allocated in arrival order (a refused one in the middle, a later smaller one placed)', async () => {
  const product = await hotProduct(3);
  const batcher = new OrderBatcher(sqlPoolOf(prisma));
  const counter = countCalls(sqlPoolOf(prisma));
  const entries = await Promise.all([1, 3, 2, 1].map((quantity) => entry(product.id, quantity)));
  const blocker = await lockRow(product.id);
  const first = batcher.place(entries[0]);
  expect({ busy: batcher.busy, queued: batcher.queued, calls: counter.calls }).toEqual({ busy: true, queued: 0, calls: 1 });
  const rest = entries.slice(1).map((e) => batcher.place(e));
  expect(batcher.queued).toBe(3);
  await blocker.release();
  expect(await Promise.all([first, ...rest])).toEqual(['placed', 'insufficient_stock', 'placed', 'insufficient_stock']);
  expect(counter.calls).toBe(2);
  expect(await stockOf(prisma, product.id)).toBe(0);
  expect(await Promise.all(entries.map(written))).toEqual([
    { orders: 1, payments: 1, events: 1 },
    { orders: 0, payments: 0, events: 0 },
    { orders: 1, payments: 1, events: 1 },
    { orders: 0, payments: 0, events: 0 },
  ]);
  expect(await prisma.orderItem.aggregate({ where: { productId: product.id }, _sum: { quantity: true } })).toEqual({ _sum: { quantity: 3 } });
  // the outbox row is the envelope enqueueEvent builds
  const event = await prisma.outbox.findUniqueOrThrow({ where: { id: entries[2].outbox.id } });
  expect({ type: event.type, payload: event.payload, headers: event.headers }).toEqual({ type: entries[2].outbox.type, payload: entries[2].outbox.payload, headers: entries[2].outbox.headers });
  expect(batcher.busy).toBe(false);
});

test('an order that breaks the batch (a constraint) fails alone: the batch is placed again order by order', async () => {
  const product = await hotProduct(10);
  const batcher = new OrderBatcher(sqlPoolOf(prisma));
  const counter = countCalls(sqlPoolOf(prisma));
  const entries = await Promise.all([1, 1, 1, 1].map((quantity) => entry(product.id, quantity)));
  entries[2].items[0].quantity = 0; // order_item.quantity > 0 refuses it
  const blocker = await lockRow(product.id);
  const placing = entries.map((e) => batcher.place(e));
  expect(batcher.queued).toBe(3);
  await blocker.release();
  const outcomes = await settle(placing);
  expect(outcomes.map((o) => ('outcome' in o ? o.outcome : sqlStateOf(o.error)))).toEqual(['placed', 'placed', '23514', 'placed']);
  expect(counter.calls).toBe(1 + 1 + 3);
  expect(await stockOf(prisma, product.id)).toBe(7);
  expect((await written(entries[2])).orders).toBe(0);
});

test('a broken connection is not retried: the orders of that call answer 503, the next batch goes on', async () => {
  const product = await hotProduct(10);
  const pool = createSqlPool(t.checkout.config.DATABASE_URL, { max: 1 });
  try {
    const batcher = new OrderBatcher(pool);
    const counter = countCalls(pool);
    const entries = await Promise.all([1, 1].map((quantity) => entry(product.id, quantity)));
    const blocker = await lockRow(product.id);
    const placing = entries.map((e) => batcher.place(e));
    // the call in flight waits for the row lock: end its connection from the server side
    const waiter = await waiterOf(blocker.pid);
    await prisma.$queryRawUnsafe('SELECT pg_terminate_backend($1::int)', waiter);
    await blocker.release();
    const outcomes = await settle(placing);
    expect(outcomes[0]).toMatchObject({ error: { status: 503, code: 'service_unavailable' } });
    expect(outcomes[1]).toEqual({ outcome: 'placed' });
    expect(counter.calls).toBe(2);
    expect(await stockOf(prisma, product.id)).toBe(9);
    expect((await written(entries[0])).orders).toBe(0);
  } finally {
    await pool.end();
  }
});

/** The backend whose place_orders call waits for the blocker's row lock. */
async function waiterOf(blockerPid: number): Promise<number> {
  for (let i = 0; i < 500; i += 1) {
    const [row] = await prisma.$queryRawUnsafe<{ pid: number }[]>(
      `SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid)) AND query LIKE 'SELECT place_orders%'`,
      blockerPid,
    );
    if (row) return row.pid;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no place_orders call waits for the row lock');
}

test('stop drains: queued orders answer 503 (nothing written), the batch in flight finishes, later orders answer 503', async () => {
  const product = await hotProduct(10);
  const batcher = new OrderBatcher(sqlPoolOf(prisma));
  const entries = await Promise.all([1, 1, 1, 1].map((quantity) => entry(product.id, quantity)));
  const blocker = await lockRow(product.id);
  const placing = entries.slice(0, 3).map((e) => batcher.place(e));
  const stopped = batcher.stop();
  const later = batcher.place(entries[3]);
  await blocker.release();
  await stopped;
  expect(batcher.busy).toBe(false);
  const outcomes = await settle([...placing, later]);
  expect(outcomes[0]).toEqual({ outcome: 'placed' });
  for (const refused of outcomes.slice(1)) expect(refused).toMatchObject({ error: { status: 503, code: 'service_unavailable' } });
  expect(await stockOf(prisma, product.id)).toBe(9);
  expect(await Promise.all(entries.slice(1).map(async (e) => (await written(e)).orders))).toEqual([0, 0, 0]);
});

test("the checkout's stop drains its order batcher: an order placed after it answers 503", async () => {
  const product = await hotProduct(1);
  const other = await startTestCheckout();
  const batcher = orderBatcherOf(sqlPoolOf(other.checkout.prisma));
  await other.stop();
  await expect(batcher.place(await entry(product.id, 1))).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
});

test('place_order_batch, kept for the instances of the version before during a rolling deploy, places through place_orders and answers as before', async () => {
  const product = await hotProduct(2);
  const [fits, tooMany] = [await entry(product.id, 2), await entry(product.id, 1)];
  const call = (entries: BatchEntry[]) => sqlPoolOf(prisma).query<{ placed: boolean[] }>('SELECT place_order_batch($1::jsonb) AS placed', [JSON.stringify(entries)]);
  expect((await call([fits, tooMany])).rows[0].placed).toEqual([true, false]);
  expect(await stockOf(prisma, product.id)).toBe(0);
  expect((await written(fits)).orders).toBe(1);
  // another order under a key an order of the customer already has: unique_violation, as its INSERT
  // raised (the caller then answers that order), and nothing of it written
  await prisma.product.update({ where: { id: product.id }, data: { stock: 5 } });
  const [first, second] = [await entry(product.id, 1), await entry(product.id, 1)];
  first.order.idempotency_key = 'kept-batch';
  Object.assign(second.order, { customer_id: first.order.customer_id, idempotency_key: 'kept-batch' });
  expect((await call([first])).rows[0].placed).toEqual([true]);
  await expect(call([second])).rejects.toMatchObject({ code: '23505' });
  expect((await written(second)).orders).toBe(0);
  expect(await stockOf(prisma, product.id)).toBe(4);
});
