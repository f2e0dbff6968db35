import { isDatabaseBusy, sqlPoolOf } from '@pasar/db';
import { ProblemError, problemOf } from '@pasar/service-kit';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { PrismaClient } from '../generated/prisma/client';
import { submitOrder, type OrderDeps } from './submit';
import { seedCustomer, seedPoints, seedProduct, seedShippingMethod, seedStore, seedVoucher, stockOf } from './test-fixtures';

/**
 * Submits racing for the same rows, through the use case the route calls (in-process, so the
 * database, not HTTP, is what is measured). Every submit is its own customer unless told.
 */

let t: TestCheckout;
let prisma: PrismaClient;
let deps: OrderDeps;

beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
  deps = { prisma, config: t.checkout.config };
});
afterAll(async () => {
  await t?.stop();
});

/** Runs the submits at once; answers how many placed an order and the error codes of the rest. */
async function race(submits: (() => Promise<unknown>)[]): Promise<{ placed: number; refused: Record<string, number> }> {
  const outcomes = await Promise.allSettled(submits.map((submit) => submit()));
  const refused: Record<string, number> = {};
  let placed = 0;
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') placed += 1;
    else if (outcome.reason instanceof ProblemError) refused[outcome.reason.code] = (refused[outcome.reason.code] ?? 0) + 1;
    else throw outcome.reason;
  }
  return { placed, refused };
}

async function customers(count: number) {
  return Promise.all(Array.from({ length: count }, () => seedCustomer(prisma)));
}

async function hotProduct(stock: number, basePrice = '20.00') {
  const storeId = await seedStore(prisma);
  await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 5 } });
  return seedProduct(prisma, { storeId, stock, basePrice });
}

test('200 concurrent submits for 50 units place exactly 50 orders and leave stock at 0', async () => {
  const product = await hotProduct(50);
  const buyers = await customers(200);
  const { placed, refused } = await race(
    buyers.map(({ customerId, addressId }) => () => submitOrder(deps, customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] })),
  );
  expect(placed).toBe(50);
  expect(refused).toEqual({ insufficient_stock: 150 });
  expect(await stockOf(prisma, product.id)).toBe(0);
  const sold = await prisma.orderItem.aggregate({ where: { productId: product.id }, _sum: { quantity: true }, _count: true });
  expect(sold).toEqual({ _sum: { quantity: 50 }, _count: 50 });
  expect(await prisma.payment.count({ where: { order: { items: { some: { productId: product.id } } } } })).toBe(50);
  expect(await prisma.outbox.count({ where: { type: 'checkout.order.created', payload: { path: ['data', 'subOrders', '0', 'items', '0', 'productId'], equals: product.id } } })).toBe(50);
});

test('a voucher with a third of the pool in uses, raced by as many submits as the pool holds, is used exactly that often', async () => {
  // as many submits as there are connections, so every one gets its transaction: this races the
  // voucher's rule, not the pool (queued submits would time out starting their transaction)
  const racers = sqlPoolOf(prisma).options.max;
  const maxUses = Math.max(1, Math.floor(racers / 3));
  expect(racers).toBeGreaterThan(maxUses);
  const product = await hotProduct(1000);
  const voucher = await seedVoucher(prisma, { maxUses, discountType: 'fixed', discountValue: '2.00' });
  const buyers = await customers(racers);
  const { placed, refused } = await race(
    buyers.map(({ customerId, addressId }) => () =>
      submitOrder(deps, customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], voucherId: voucher.id }),
    ),
  );
  expect(placed).toBe(maxUses);
  expect(refused).toEqual({ voucher_exhausted: racers - maxUses });
  expect((await prisma.voucher.findUniqueOrThrow({ where: { id: voucher.id } })).usedCount).toBe(maxUses);
  expect(await prisma.order.count({ where: { voucherId: voucher.id } })).toBe(maxUses);
  expect(await stockOf(prisma, product.id)).toBe(1000 - maxUses);
});

test('20 concurrent redemptions of a balance that covers 5 debit exactly 5 and never go below zero', async () => {
  const product = await hotProduct(1000, '100.00');
  const [{ customerId, addressId }] = await customers(1);
  await seedPoints(prisma, customerId, 5000);
  const { placed, refused } = await race(
    Array.from({ length: 20 }, () => () =>
      submitOrder(deps, customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], loyaltyPoints: 1000 }),
    ),
  );
  expect(placed).toBe(5);
  expect(refused).toEqual({ insufficient_points: 15 });
  expect(await prisma.loyaltyAccount.findUniqueOrThrow({ where: { customerId } })).toMatchObject({ balance: 0, totalRedeemed: 5000 });
  const redeemed = await prisma.loyaltyTransaction.aggregate({ where: { customerId, type: 'redeem' }, _sum: { points: true }, _count: true });
  expect(redeemed).toEqual({ _sum: { points: -5000 }, _count: 5 });
  expect(await stockOf(prisma, product.id)).toBe(995);
});

test('carts that list the same rows in opposite orders never deadlock (rows are locked in one fixed order)', async () => {
  const first = await hotProduct(1000);
  const second = await seedProduct(prisma, { storeId: first.storeId, variants: [{ name: 'Only', stock: 1000 }] });
  const buyers = await customers(40);
  const { placed, refused } = await race(
    buyers.map(({ customerId, addressId }, i) => () => {
      const lines = [
        { productId: first.id, quantity: 1 },
        { productId: second.id, variantId: second.variants[0].id, quantity: 1 },
      ];
      return submitOrder(deps, customerId, { addressId, items: i % 2 === 0 ? lines : lines.reverse() });
    }),
  );
  expect({ placed, refused }).toEqual({ placed: 40, refused: {} });
  expect(await stockOf(prisma, first.id)).toBe(960);
  expect((await prisma.productVariant.findUniqueOrThrow({ where: { id: second.variants[0].id } })).stock).toBe(960);
});

test('the same Idempotency-Key submitted 10 times at once places one order and answers it to every request', async () => {
  const product = await hotProduct(100);
  const [{ customerId, addressId }] = await customers(1);
  const body = { addressId, items: [{ productId: product.id, quantity: 2 }] };
  const orders = await Promise.all(Array.from({ length: 10 }, () => submitOrder(deps, customerId, body, { idempotencyKey: 'pay-once' })));
  expect(new Set(orders.map((o) => o.id)).size).toBe(1);
  expect(await prisma.order.count({ where: { customerId } })).toBe(1);
  expect(await stockOf(prisma, product.id)).toBe(98);
  // and a replay after the fact answers the same order
  expect((await submitOrder(deps, customerId, body, { idempotencyKey: 'pay-once' })).id).toBe(orders[0].id);
});

test('plain multi-line orders over 10 products from 100 buyers at once each take exactly their units', async () => {
  const storeId = await seedStore(prisma);
  await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 5 } });
  const products = await Promise.all(Array.from({ length: 10 }, () => seedProduct(prisma, { storeId, stock: 15 })));
  const buyers = await customers(100);
  const { placed, refused } = await race(
    buyers.map(({ customerId, addressId }, i) => () =>
      submitOrder(deps, customerId, {
        addressId,
        items: [
          { productId: products[i % 10].id, quantity: 1 },
          { productId: products[(i + 1) % 10].id, quantity: 1 },
        ],
      }),
    ),
  );
  // every product is in 20 carts for 15 units: whatever the order of arrival, no row goes below 0
  const stocks = await Promise.all(products.map((p) => stockOf(prisma, p.id)));
  const sold = await Promise.all(products.map((p) => prisma.orderItem.aggregate({ where: { productId: p.id }, _sum: { quantity: true } })));
  stocks.forEach((stock, i) => {
    expect(stock).toBeGreaterThanOrEqual(0);
    expect(stock + (sold[i]._sum.quantity ?? 0)).toBe(15);
  });
  expect(placed + (refused.insufficient_stock ?? 0)).toBe(100);
  expect(await prisma.order.count({ where: { items: { some: { productId: { in: products.map((p) => p.id) } } } } })).toBe(placed);
});

test('a transaction that cannot start while every connection is taken is a busy database: 503 database_busy, Retry-After 1', async () => {
  const pool = sqlPoolOf(prisma);
  const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
  try {
    const err = await prisma.$transaction(async (tx) => tx.voucher.count(), { maxWait: 200 }).catch((e: unknown) => e);
    expect(isDatabaseBusy(err)).toBe(true);
    expect(problemOf(err)).toMatchObject({ status: 503, code: 'database_busy', headers: { 'Retry-After': '1' } });
  } finally {
    for (const client of held) client.release();
  }
});
