import { randomUUID } from 'node:crypto';
import { silentLog, waitFor } from '@pasar/testkit';
import { useTestCheckout } from '../../test/checkout';
import { expireDueOrders, startExpirySweep } from './expiry';
import { markOrderPaid } from './order-paid';
import { STOCK_BEFORE_SUBMIT, seedPendingOrder, type PendingOrderOptions, type SeededOrder } from './test-fixtures';

const t = useTestCheckout();

const prisma = () => t.checkout.prisma;
const deps = () => ({ prisma: prisma(), log: silentLog });
const past = () => new Date(Date.now() - 60_000);

/** Holds stock on two stores (one a variant), a voucher use, a KOL use and 300 points. */
const holdingOrder = (options: PendingOrderOptions = {}) =>
  seedPendingOrder(prisma(), { stores: 2, variant: true, quantity: 1, voucherDiscount: '5.00', kolCode: true, pointsRedeemed: 300, expiresAt: past(), ...options });

/** What an order holds and what expiry changes, to compare. */
async function holdingsOf(order: SeededOrder) {
  const [variant, product, voucher, kol, account, releases, row, payment, subOrders] = await Promise.all([
    prisma().productVariant.findUniqueOrThrow({ where: { id: order.lines[0].variantId ?? '' } }),
    prisma().product.findUniqueOrThrow({ where: { id: order.lines[1].productId } }),
    prisma().voucher.findUniqueOrThrow({ where: { id: order.voucherId ?? '' } }),
    prisma().kolCode.findUniqueOrThrow({ where: { id: order.kolCodeId ?? '' } }),
    prisma().loyaltyAccount.findUnique({ where: { customerId: order.customerId } }),
    prisma().loyaltyTransaction.findMany({ where: { orderId: order.orderId, type: 'release' } }),
    prisma().order.findUniqueOrThrow({ where: { id: order.orderId } }),
    prisma().payment.findUniqueOrThrow({ where: { orderId: order.orderId } }),
    prisma().subOrder.findMany({ where: { orderId: order.orderId } }),
  ]);
  return {
    stock: [variant.stock, product.stock],
    uses: [voucher.usedCount, kol.usedCount],
    points: account?.balance ?? 0,
    releases: releases.map((r) => r.points),
    status: row.status,
    payment: payment.status,
    subOrders: subOrders.map((s) => s.status),
  };
}

async function statusChangesTo(status: string, orderIds: string[]): Promise<number> {
  const rows = await prisma().outbox.findMany({ where: { type: 'checkout.order.status_changed' } });
  return rows.filter((row) => {
    const data = (row.payload as unknown as { data: { orderId: string; status: string } }).data;
    return data.status === status && orderIds.includes(data.orderId);
  }).length;
}

test('an unpaid order past expires_at is expired and releases stock, voucher use, points and KOL use', async () => {
  const order = await holdingOrder();
  expect(await holdingsOf(order)).toMatchObject({ stock: [STOCK_BEFORE_SUBMIT - 1, STOCK_BEFORE_SUBMIT - 1], uses: [1, 1], points: 0 });

  expect(await expireDueOrders(deps())).toBeGreaterThanOrEqual(1);

  expect(await holdingsOf(order)).toEqual({
    stock: [STOCK_BEFORE_SUBMIT, STOCK_BEFORE_SUBMIT],
    uses: [0, 0],
    points: 300,
    releases: [300],
    status: 'expired',
    payment: 'expired',
    subOrders: ['cancelled', 'cancelled'],
  });
  expect(await statusChangesTo('expired', [order.orderId])).toBe(1);
});

test('two sweeps at once release every order exactly once, in batches, over shared stock, voucher and KOL rows', async () => {
  const first = await holdingOrder();
  const orders = [first];
  for (let i = 0; i < 7; i += 1) orders.push(await holdingOrder({ sameGoodsAs: first }));
  expect(await holdingsOf(first)).toMatchObject({ stock: [STOCK_BEFORE_SUBMIT - 8, STOCK_BEFORE_SUBMIT - 8], uses: [8, 8] });

  const counts = await Promise.all([expireDueOrders(deps(), new Date(), 2), expireDueOrders(deps(), new Date(), 2)]);
  // (the service's own sweep may take part too: what must hold is that no order is counted or released twice)
  expect(counts[0] + counts[1]).toBeLessThanOrEqual(orders.length);
  expect(await expireDueOrders(deps())).toBe(0);

  expect(await holdingsOf(first)).toMatchObject({ stock: [STOCK_BEFORE_SUBMIT, STOCK_BEFORE_SUBMIT], uses: [0, 0] });
  for (const order of orders) {
    expect(await holdingsOf(order)).toMatchObject({ points: 300, releases: [300], status: 'expired', payment: 'expired' });
  }
  expect(await statusChangesTo('expired', orders.map((o) => o.orderId))).toBe(orders.length);
});

test('leaves alone an order not yet due and an order that was paid', async () => {
  const notDue = await holdingOrder({ expiresAt: new Date(Date.now() + 60_000) });
  const paid = await holdingOrder();
  await prisma().$transaction((tx) => markOrderPaid(tx, paid.orderId, { transactionId: 'T-paid', paidAt: new Date() }, silentLog));
  const before = [await holdingsOf(notDue), await holdingsOf(paid)];

  await expireDueOrders(deps());

  expect([await holdingsOf(notDue), await holdingsOf(paid)]).toEqual(before);
  expect(before.map((h) => h.status)).toEqual(['pending_payment', 'paid']);
});

test('skips an order whose row a payment holds right now; the payment wins', async () => {
  const order = await holdingOrder();
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked: () => void = () => undefined;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const payment = prisma().$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "order" WHERE id = ${order.orderId}::uuid FOR UPDATE`;
    locked();
    await held;
    return markOrderPaid(tx, order.orderId, { transactionId: 'T-race', paidAt: new Date() }, silentLog);
  });
  await isLocked;
  await expireDueOrders(deps());
  expect((await holdingsOf(order)).status).toBe('pending_payment');
  release();
  expect(await payment).toMatchObject({ outcome: 'paid' });
  await expireDueOrders(deps());
  expect(await holdingsOf(order)).toMatchObject({ status: 'paid', payment: 'paid', uses: [1, 1], releases: [] });
});

test('the sweep worker expires due orders on its own, round after round, and stops cleanly', async () => {
  const sweep = startExpirySweep(deps(), 50);
  try {
    const first = await holdingOrder({ customerId: randomUUID() });
    await waitFor(async () => (await holdingsOf(first)).status === 'expired');
    const second = await holdingOrder();
    await waitFor(async () => (await holdingsOf(second)).status === 'expired');
    expect((await holdingsOf(second)).releases).toEqual([300]);
  } finally {
    await sweep.stop();
  }
});
