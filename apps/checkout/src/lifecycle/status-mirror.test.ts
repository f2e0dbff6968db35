import { randomUUID } from 'node:crypto';
import { vendorShipmentStatusChanged, type EventEnvelope, type SubOrderStatus } from '@pasar/contracts';
import { eventEnvelope, shipmentChange, silentLog, waitFor } from '@pasar/testkit';
import { useTestCheckout } from '../../test/checkout';
import { markOrderPaid } from './order-paid';
import type { ShipmentStatusChanged } from './status-mirror';
import { STOCK_BEFORE_SUBMIT, seedPendingOrder, type SeededOrder } from './test-fixtures';

const t = useTestCheckout();

const prisma = () => t.checkout.prisma;

/**
 * A paid order over two stores: each 2 × 25.50 + 4.50 shipping; a 5.00 voucher and 200 points
 * (2.00) off the first. Earned 95 points on payment (44 + 51 by paid subtotal). Totals 48.50 and 55.50.
 */
async function paidOrder(): Promise<SeededOrder> {
  const order = await seedPendingOrder(prisma(), { stores: 2, voucherDiscount: '5.00', pointsRedeemed: 200 });
  await prisma().$transaction((tx) => markOrderPaid(tx, order.orderId, { transactionId: `T-${order.shortId}`, paidAt: new Date() }, silentLog));
  return order;
}

function shipmentEvent(order: SeededOrder, subOrderIndex: number, status: SubOrderStatus, extra: Partial<ShipmentStatusChanged> = {}): EventEnvelope<ShipmentStatusChanged> {
  const sub = order.subOrders[subOrderIndex];
  const now = new Date().toISOString();
  const data = shipmentChange({ shipmentId: sub.id, orderId: order.orderId, storeId: sub.storeId, status, cancelledAt: status === 'cancelled' ? now : null, changedAt: now, ...extra });
  return eventEnvelope(vendorShipmentStatusChanged, data, 'vendor', now);
}

/**
 * Publishes as vendor's outbox relay would and waits until checkout's mirror acknowledged it. A
 * message id other than the event id gets a copy past JetStream's duplicate window (a redelivery).
 */
async function deliver(envelope: EventEnvelope<ShipmentStatusChanged>, msgID = envelope.id): Promise<void> {
  const { bus } = t.peer;
  const ack = await bus.js.publish(bus.naming.eventSubject(envelope), JSON.stringify(envelope), { msgID });
  const jsm = await bus.jsm;
  const durable = bus.naming.durable('checkout', 'shipment-status-mirror');
  await waitFor(async () => (await jsm.consumers.info(bus.naming.stream('VENDOR'), durable)).ack_floor.stream_seq >= ack.seq);
}

async function parentOf(order: SeededOrder) {
  const [row, subOrders, payment, account, reversals, changes] = await Promise.all([
    prisma().order.findUniqueOrThrow({ where: { id: order.orderId } }),
    prisma().subOrder.findMany({ where: { orderId: order.orderId }, orderBy: { createdAt: 'asc' } }),
    prisma().payment.findUniqueOrThrow({ where: { orderId: order.orderId } }),
    prisma().loyaltyAccount.findUniqueOrThrow({ where: { customerId: order.customerId } }),
    prisma().loyaltyTransaction.findMany({ where: { orderId: order.orderId, type: { in: ['reversal', 'release'] } }, orderBy: { createdAt: 'asc' } }),
    prisma().outbox.findMany({ where: { type: 'checkout.order.status_changed' }, orderBy: { seq: 'asc' } }),
  ]);
  const stock = await Promise.all(order.lines.map((l) => prisma().product.findUniqueOrThrow({ where: { id: l.productId } })));
  return {
    status: row.status,
    subOrders: subOrders.map((s) => s.status),
    refunded: payment.refundedAmount.toFixed(2),
    points: account.balance,
    reversals: reversals.filter((r) => r.type === 'reversal').map((r) => [r.subOrderId, r.points]),
    releases: reversals.filter((r) => r.type === 'release').map((r) => [r.subOrderId, r.points]),
    stock: stock.map((p) => p.stock),
    changes: changes
      .map((c) => (c.payload as unknown as { data: { orderId: string; previousStatus: string; status: string } }).data)
      .filter((d) => d.orderId === order.orderId)
      .map((d) => `${d.previousStatus}→${d.status}`),
  };
}

test('mirrors status, courier, tracking and timestamps onto the sub-order and advances the parent of a 2-sub-order order', async () => {
  const order = await paidOrder();
  const shippedAt = '2026-03-02T08:00:00.000Z';
  await deliver(shipmentEvent(order, 0, 'processing'));
  expect(await parentOf(order)).toMatchObject({ status: 'processing', subOrders: ['processing', 'paid'] });

  await deliver(shipmentEvent(order, 0, 'shipped', { courier: 'carrier_a', trackingId: 'CA123', trackingUrl: 'https://track.example/CA123', shippedAt }));
  const shipped = await prisma().subOrder.findUniqueOrThrow({ where: { id: order.subOrders[0].id } });
  expect(shipped).toMatchObject({ status: 'shipped', courier: 'carrier_a', trackingId: 'CA123', trackingUrl: 'https://track.example/CA123', shippedAt: new Date(shippedAt) });
  expect((await parentOf(order)).status).toBe('partially_shipped');

  await deliver(shipmentEvent(order, 1, 'shipped', { courier: 'carrier_b', trackingId: 'CB9' }));
  expect((await parentOf(order)).status).toBe('shipped');
  await deliver(shipmentEvent(order, 0, 'delivered', { deliveredAt: '2026-03-04T10:00:00.000Z' }));
  expect((await parentOf(order)).status).toBe('shipped');
  const delivered = await prisma().subOrder.findUniqueOrThrow({ where: { id: order.subOrders[0].id } });
  expect(delivered).toMatchObject({ status: 'delivered', trackingId: 'CA123', deliveredAt: new Date('2026-03-04T10:00:00.000Z') });
  await deliver(shipmentEvent(order, 1, 'delivered'));

  expect(await parentOf(order)).toMatchObject({
    status: 'delivered',
    subOrders: ['delivered', 'delivered'],
    changes: ['pending_payment→paid', 'paid→processing', 'processing→partially_shipped', 'partially_shipped→shipped', 'shipped→delivered'],
  });
});

test('a late, older status does not move a sub-order or its parent back', async () => {
  const order = await paidOrder();
  await deliver(shipmentEvent(order, 0, 'shipped', { trackingId: 'CA1' }));
  await deliver(shipmentEvent(order, 0, 'processing'));
  expect(await parentOf(order)).toMatchObject({ status: 'partially_shipped', subOrders: ['shipped', 'paid'] });
});

test('a vendor cancel delivered twice (redelivery and a second event) releases stock, refunds, gives back redeemed and reverses earned points once', async () => {
  const order = await paidOrder();
  const before = await parentOf(order);
  expect(before).toMatchObject({ points: 95, refunded: '0.00', stock: [STOCK_BEFORE_SUBMIT - 2, STOCK_BEFORE_SUBMIT - 2] });

  const cancel = shipmentEvent(order, 1, 'cancelled', { reason: 'out of stock' });
  await deliver(cancel);
  await deliver(cancel, randomUUID());
  await deliver(shipmentEvent(order, 1, 'cancelled'));

  const after = await parentOf(order);
  expect(after).toMatchObject({
    status: 'paid',
    subOrders: ['paid', 'cancelled'],
    refunded: '55.50',
    // 200 redeemed, 95 earned, shared 44 : 51 by paid subtotal: 107 of the redeemed come back, 51 earned go
    points: 95 + 107 - 51,
    reversals: [[order.subOrders[1].id, -51]],
    releases: [[order.subOrders[1].id, 107]],
    stock: [STOCK_BEFORE_SUBMIT - 2, STOCK_BEFORE_SUBMIT],
    changes: ['pending_payment→paid'],
  });
  expect((await prisma().subOrder.findUniqueOrThrow({ where: { id: order.subOrders[1].id } })).cancelledAt).toEqual(new Date(cancel.data.cancelledAt ?? ''));

  await deliver(shipmentEvent(order, 0, 'cancelled'));
  expect(await parentOf(order)).toMatchObject({
    status: 'cancelled',
    refunded: '104.00',
    // every sub-order cancelled: all 200 redeemed points back, all 95 earned taken back
    points: 200,
    reversals: [
      [order.subOrders[1].id, -51],
      [order.subOrders[0].id, -44],
    ],
    releases: [
      [order.subOrders[1].id, 107],
      [order.subOrders[0].id, 93],
    ],
    stock: [STOCK_BEFORE_SUBMIT, STOCK_BEFORE_SUBMIT],
    changes: ['pending_payment→paid', 'paid→cancelled'],
  });
});

test('points already spent: the redeemed share comes back first, then the earned share is taken from the whole balance', async () => {
  const order = await paidOrder();
  await prisma().loyaltyAccount.update({ where: { customerId: order.customerId }, data: { balance: 20 } });
  await deliver(shipmentEvent(order, 1, 'cancelled'));
  expect(await parentOf(order)).toMatchObject({ points: 20 + 107 - 51, reversals: [[order.subOrders[1].id, -51]], releases: [[order.subOrders[1].id, 107]], subOrders: ['paid', 'cancelled'] });
});

test('an order that redeemed nothing gets nothing back, and the reversal never goes below zero', async () => {
  const order = await seedPendingOrder(prisma(), { stores: 2 });
  await prisma().$transaction((tx) => markOrderPaid(tx, order.orderId, { transactionId: `T-${order.shortId}`, paidAt: new Date() }, silentLog));
  await prisma().loyaltyAccount.update({ where: { customerId: order.customerId }, data: { balance: 20 } });
  await deliver(shipmentEvent(order, 1, 'cancelled'));
  const after = await parentOf(order);
  expect(after).toMatchObject({ points: 0, releases: [], subOrders: ['paid', 'cancelled'] });
  expect(after.reversals).toEqual([[order.subOrders[1].id, -20]]);
});

test('the refund never exceeds the amount paid', async () => {
  const order = await paidOrder();
  await prisma().payment.update({ where: { orderId: order.orderId }, data: { refundedAmount: '100.00' } });
  await deliver(shipmentEvent(order, 0, 'cancelled'));
  expect((await parentOf(order)).refunded).toBe('104.00');
});

test('a status for an unknown sub-order is acknowledged and changes nothing', async () => {
  const order = await paidOrder();
  const stray = shipmentEvent(order, 0, 'shipped', { shipmentId: randomUUID() });
  await deliver(stray);
  expect(await parentOf(order)).toMatchObject({ status: 'paid', subOrders: ['paid', 'paid'] });
  const parked = await prisma().parkedMessage.count({ where: { eventId: stray.id } });
  expect(parked).toBe(0);
});
