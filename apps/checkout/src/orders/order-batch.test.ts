import { createSqlPool, sqlPoolOf, sqlStateOf, type SqlPool } from '@pasar/db';
import type { PoolClient } from 'pg';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { PrismaClient } from '../generated/prisma/client';
import { OrderBatcher, orderBatcherOf, type BatchEntry, type BatchOutcome } from './order-batch';
import { batchEntryOf, EarlierOrder, priceOrder, writeOrder } from './place-order';
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

/** The rows an order wrote, without what differs by design between two orders (ids, times). */
async function rowsOf(orderId: string) {
  const strip = <T extends object>(row: T, keys: string[]) => Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));
  const ids = ['id', 'orderId', 'subOrderId', 'shortId', 'customerId', 'createdAt', 'updatedAt', 'expiresAt'];
  const order = await prisma.order.findUniqueOrThrow({ where: { id: orderId }, include: { subOrders: true, items: true, payment: true } });
  const event = await prisma.outbox.findFirstOrThrow({ where: { payload: { path: ['data', 'orderId'], equals: orderId } } });
  return {
    order: strip(order, [...ids, 'subOrders', 'items', 'payment']),
    subOrders: order.subOrders.map((s) => strip(s, ids)),
    items: order.items.map((i) => strip(i, ids)),
    payment: order.payment && strip(order.payment, ids),
    stockTaken: order.items.reduce((sum, i) => sum + i.quantity, 0),
    eventType: event.type,
  };
}

test('one order writer: the same priced order written by the batcher and inside an order transaction (writeOrder) writes the same rows and takes the same stock', async () => {
  const product = await hotProduct(10);
  const { customerId } = await seedCustomer(prisma);
  const priced = () => priceOrder(prisma, { customerId, lines: [{ productId: product.id, quantity: 3 }], shippingAddress: SEEDED_ADDRESS, now: new Date(), paymentTtlMs: 60_000 });
  const batched = await batchEntryOf(await priced());
  expect(await orderBatcherOf(sqlPoolOf(prisma)).place(batched.entry)).toBe('placed');
  const inTransaction = await prisma.$transaction(async (tx) => writeOrder(tx, await priced()));
  expect(await stockOf(prisma, product.id)).toBe(4);
  expect(await rowsOf(inTransaction.id)).toEqual(await rowsOf(batched.order.id));
  // not enough left: refused in the transaction as in a batch, nothing written
  const tooMany = await priceOrder(prisma, { customerId, lines: [{ productId: product.id, quantity: 3 }], shippingAddress: SEEDED_ADDRESS, now: new Date(), paymentTtlMs: 60_000 });
  await prisma.product.update({ where: { id: product.id }, data: { stock: 2 } });
  await expect(prisma.$transaction((tx) => writeOrder(tx, tooMany))).rejects.toMatchObject({ status: 400, code: 'insufficient_stock' });
  expect(await stockOf(prisma, product.id)).toBe(2);
  expect(await prisma.order.count({ where: { customerId } })).toBe(2);
});

test('inside the order transaction, place_orders resolves the Idempotency-Key: EarlierOrder names the earlier order, nothing written', async () => {
  const product = await hotProduct(10);
  const { customerId } = await seedCustomer(prisma);
  const input = { customerId, lines: [{ productId: product.id, quantity: 1 }], shippingAddress: SEEDED_ADDRESS, now: new Date(), paymentTtlMs: 60_000, idempotency: { key: 'k-1', hash: 'h-1' } };
  const first = await prisma.$transaction(async (tx) => writeOrder(tx, await priceOrder(prisma, input)));
  const again = await priceOrder(prisma, input);
  await expect(prisma.$transaction((tx) => writeOrder(tx, again))).rejects.toEqual(new EarlierOrder({ orderId: first.id, requestHash: 'h-1' }));
  expect(await stockOf(prisma, product.id)).toBe(9);
  expect(await prisma.order.count({ where: { customerId } })).toBe(1);
});

test('place_order_batch, the shim of the version before place_orders, is gone', async () => {
  const { rows } = await sqlPoolOf(prisma).query<{ shim: string | null; writer: string | null }>(
    "SELECT to_regprocedure('place_order_batch(jsonb)')::text AS shim, to_regprocedure('place_orders(jsonb)')::text AS writer",
  );
  expect(rows[0]).toEqual({ shim: null, writer: 'place_orders(jsonb)' });
});
