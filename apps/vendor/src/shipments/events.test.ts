import { randomUUID } from 'node:crypto';
import { RpcFailedError, callRpc } from '@pasar/bus';
import {
  adminShipmentBooked,
  checkoutOrderCreated,
  checkoutOrderPaid,
  checkoutOrderStatusChanged,
  vendorBookingContext,
  vendorShipmentStatusChanged,
  type EventData,
  type EventEnvelope,
  type StreamName,
} from '@pasar/contracts';
import { silentLog, waitFor } from '@pasar/testkit';
import request from 'supertest';
import { givenShipment, orderCreated, type OrderCreated } from '../../test/shipments';
import type { Tx } from '../deps';
import { createShipments, markOrderPaid } from './events';
import { envelope, givenStore, outboxEvents, publishAndWait, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';

let t: TestVendor;
let store: TestStore;

beforeAll(async () => {
  t = await startTestVendor();
  store = await givenStore(t);
});
afterAll(async () => {
  await t?.stop();
});

const CONSUMERS: Record<string, [string, StreamName]> = {
  [checkoutOrderCreated.type]: ['shipments-order-created', 'CHECKOUT'],
  [checkoutOrderPaid.type]: ['shipments-order-paid', 'CHECKOUT'],
  [checkoutOrderStatusChanged.type]: ['shipments-order-closed', 'CHECKOUT'],
  [adminShipmentBooked.type]: ['shipments-booked', 'ADMIN'],
};

/** Delivers an event to vendor's consumer of its type; `copy` re-sends it under another message id (a late redelivery). */
function deliver(event: EventEnvelope, copy = false): Promise<void> {
  const [consumer, stream] = CONSUMERS[event.type];
  return publishAndWait(t.peer.bus, event, consumer, stream, copy ? randomUUID() : event.id);
}

const created = (order: OrderCreated) => envelope(checkoutOrderCreated, order);
function paid(order: OrderCreated): EventEnvelope<EventData<typeof checkoutOrderPaid>> {
  return envelope(checkoutOrderPaid, {
    orderId: order.orderId,
    shortId: order.shortId,
    customerId: order.customerId,
    isB2b: false,
    subOrderIds: order.subOrders.map((s) => s.subOrderId),
    total: order.total,
    paidAt: '2026-04-01T10:00:00.000Z',
  });
}
const statusChanged = (order: OrderCreated, status: 'expired' | 'payment_failed' | 'cancelled' | 'paid') =>
  envelope(checkoutOrderStatusChanged, { orderId: order.orderId, isB2b: false, status, previousStatus: 'pending_payment', changedAt: '2026-04-01T11:00:00.000Z' });
const booked = (shipmentId: string, trackingUrl: string | null = null) =>
  envelope(adminShipmentBooked, { shipmentId, carrier: 'carrier_b', trackingNumber: 'BK-1', trackingUrl, bookedAt: new Date().toISOString() }, 'admin');

const shipmentRow = (id: string) => t.vendor.prisma.shipment.findUnique({ where: { id } });
const eventsOf = async (id: string) => (await outboxEvents(t, vendorShipmentStatusChanged)).filter((e) => e.shipmentId === id);
const http = (path: string) => request(t.vendor.url).post(`/api/v1/vendor/shipments/${path}`).set(store.headers());

describe('checkout.order.created', () => {
  test('creates one pending_payment shipment per sub-order of a store that exists here, with items and address', async () => {
    const neighbour = await givenStore(t);
    const order = orderCreated([store.storeId, neighbour.storeId, randomUUID()], new Date('2026-04-01T09:00:00.000Z'));
    await deliver(created(order));

    const [mine, theirs, unknown] = order.subOrders;
    expect(await shipmentRow(unknown.subOrderId)).toBeNull();
    expect(await shipmentRow(theirs.subOrderId)).toMatchObject({ storeId: neighbour.storeId, status: 'pending_payment' });
    const res = await request(t.vendor.url).get(`/api/v1/vendor/shipments/${mine.subOrderId}`).set(store.headers()).expect(200);
    expect(res.body).toMatchObject({
      id: mine.subOrderId,
      orderId: order.orderId,
      status: 'pending_payment',
      createdAt: '2026-04-01T09:00:00.000Z',
      recipient: order.shippingAddress,
      items: mine.items.map((item) => expect.objectContaining({ id: item.orderItemId, productName: item.productName, quantity: item.quantity })),
    });
    expect(await eventsOf(mine.subOrderId)).toEqual([]);
  });

  test('delivered twice has its effect once', async () => {
    const order = orderCreated([store.storeId]);
    const event = created(order);
    await deliver(event);
    // if the handler ran again it would put this item back
    const [item] = order.subOrders[0].items;
    await t.vendor.prisma.shipmentItem.delete({ where: { id: item.orderItemId } });
    await deliver(event, true);
    expect(await t.vendor.prisma.shipment.count({ where: { orderId: order.orderId } })).toBe(1);
    expect(await t.vendor.prisma.shipmentItem.count({ where: { shipmentId: order.subOrders[0].subOrderId } })).toBe(1);
  });
});

describe('checkout.order.paid', () => {
  test('moves the pending shipments to paid once, even when delivered twice', async () => {
    const neighbour = await givenStore(t);
    const order = orderCreated([store.storeId, neighbour.storeId]);
    await deliver(created(order));
    const event = paid(order);
    await deliver(event);
    for (const { subOrderId, storeId } of order.subOrders) {
      expect(await shipmentRow(subOrderId)).toMatchObject({ status: 'paid', paidAt: new Date('2026-04-01T10:00:00.000Z') });
      expect(await eventsOf(subOrderId)).toEqual([expect.objectContaining({ orderId: order.orderId, storeId, status: 'paid', previousStatus: 'pending_payment' })]);
    }
    // if the handler ran again it would move these to paid a second time
    await t.vendor.prisma.shipment.updateMany({ where: { orderId: order.orderId }, data: { status: 'pending_payment' } });
    await deliver(event, true);
    const rows = await t.vendor.prisma.shipment.findMany({ where: { orderId: order.orderId } });
    expect(rows.map((row) => row.status)).toEqual(['pending_payment', 'pending_payment']);
    for (const { subOrderId } of order.subOrders) expect(await eventsOf(subOrderId)).toHaveLength(1);
  });

  test('handled before its order.created, the shipment still ends paid', async () => {
    const order = orderCreated([store.storeId]);
    await deliver(paid(order));
    await deliver(created(order));
    const id = order.subOrders[0].subOrderId;
    expect(await shipmentRow(id)).toMatchObject({ status: 'paid' });
    expect((await eventsOf(id)).map((e) => [e.previousStatus, e.status])).toEqual([['pending_payment', 'paid']]);
  });
});

describe('checkout.order.status_changed: an order closed unpaid', () => {
  test.each(['expired', 'payment_failed', 'cancelled'] as const)('%s: its pending_payment shipments end cancelled, with a status event, once', async (status) => {
    const neighbour = await givenStore(t);
    const order = orderCreated([store.storeId, neighbour.storeId]);
    await deliver(created(order));
    const change = statusChanged(order, status);
    await deliver(change);
    for (const { subOrderId } of order.subOrders) {
      expect(await shipmentRow(subOrderId)).toMatchObject({ status: 'cancelled', cancelledAt: new Date('2026-04-01T11:00:00.000Z'), cancelReason: `order ${status}` });
      expect((await eventsOf(subOrderId)).map((e) => [e.previousStatus, e.status])).toEqual([['pending_payment', 'cancelled']]);
    }
    await deliver(change, true);
    for (const { subOrderId } of order.subOrders) expect(await eventsOf(subOrderId)).toHaveLength(1);
  });

  test('handled before its order.created, the shipments start cancelled', async () => {
    const order = orderCreated([store.storeId]);
    await deliver(statusChanged(order, 'expired'));
    await deliver(created(order));
    const id = order.subOrders[0].subOrderId;
    expect(await shipmentRow(id)).toMatchObject({ status: 'cancelled', cancelReason: 'order expired' });
    expect((await eventsOf(id)).map((e) => [e.previousStatus, e.status])).toEqual([['pending_payment', 'cancelled']]);
  });

  test('other status changes, and a paid shipment, are left alone', async () => {
    const order = orderCreated([store.storeId]);
    await deliver(created(order));
    await deliver(statusChanged(order, 'paid'));
    const id = order.subOrders[0].subOrderId;
    expect(await shipmentRow(id)).toMatchObject({ status: 'pending_payment' });
    await deliver(paid(order));
    await deliver(statusChanged(order, 'cancelled'));
    expect(await shipmentRow(id)).toMatchObject({ status: 'paid' });
  });

  test('a status change that closes nothing is acked without a transaction (no inbox row); a closing one is handled', async () => {
    const order = orderCreated([store.storeId]);
    const [open, closing] = [statusChanged(order, 'paid'), statusChanged(order, 'expired')];
    await deliver(open);
    await deliver(closing);
    expect(await t.vendor.prisma.inbox.count({ where: { eventId: open.id } })).toBe(0);
    expect(await t.vendor.prisma.inbox.count({ where: { eventId: closing.id } })).toBe(1);
  });
});

test('a burst of created and paid events through the consumers (handled in batches): every shipment paid, each once', async () => {
  const orders = Array.from({ length: 40 }, () => orderCreated([store.storeId]));
  const bus = t.peer.bus;
  // published without waiting: the consumers find them buffered and take several per transaction
  for (const order of orders) {
    for (const event of [paid(order), created(order)]) await bus.js.publish(bus.naming.eventSubject(event), JSON.stringify(event), { msgID: event.id });
  }
  const last = orders.at(-1)!;
  await deliver(created(last), true); // a late duplicate, and a marker that the consumers got this far
  await waitFor(async () => (await t.vendor.prisma.shipment.count({ where: { orderId: { in: orders.map((o) => o.orderId) }, status: 'paid' } })) === 40, 20000);
  const rows = await t.vendor.prisma.shipment.findMany({ where: { orderId: { in: orders.map((o) => o.orderId) } } });
  expect(rows).toHaveLength(40);
  const paidEvents = (await outboxEvents(t, vendorShipmentStatusChanged)).filter((e) => rows.some((row) => row.id === e.shipmentId));
  expect(paidEvents).toHaveLength(40);
});

describe('order.created and order.paid handled at the same time', () => {
  const deps = () => ({ config: t.vendor.config, log: silentLog });
  const statuses = async (order: OrderCreated) =>
    (await t.vendor.prisma.shipment.findMany({ where: { orderId: order.orderId } })).map((row) => row.status);

  /** Runs `first` in a transaction held open until `second` has started in its own, then commits both. */
  async function overlapping(first: (tx: Tx) => Promise<void>, second: (tx: Tx) => Promise<void>): Promise<void> {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let firstDone: () => void = () => undefined;
    const firstWrote = new Promise<void>((r) => (firstDone = r));
    const a = t.vendor.prisma.$transaction(async (tx) => {
      await first(tx);
      firstDone();
      await held;
    });
    await firstWrote;
    const b = t.vendor.prisma.$transaction((tx) => second(tx));
    // give the second transaction time to reach its reads while the first is still open
    setTimeout(release, 150);
    await Promise.all([a, b]);
  }

  test('created first, paid while it is still open: the shipment ends paid', async () => {
    const order = orderCreated([store.storeId]);
    await overlapping((tx) => createShipments(tx, deps(), order), (tx) => markOrderPaid(tx, deps(), paid(order).data));
    expect(await statuses(order)).toEqual(['paid']);
  });

  test('paid first, created while it is still open: the shipment ends paid', async () => {
    const order = orderCreated([store.storeId]);
    await overlapping((tx) => markOrderPaid(tx, deps(), paid(order).data), (tx) => createShipments(tx, deps(), order));
    expect(await statuses(order)).toEqual(['paid']);
  });

  test('a burst of 30 orders, both events at once and a duplicate of each: every shipment paid, one paid event each', async () => {
    const orders = Array.from({ length: 30 }, () => orderCreated([store.storeId]));
    for (const order of orders) {
      await Promise.all([
        t.vendor.prisma.$transaction((tx) => createShipments(tx, deps(), order)),
        t.vendor.prisma.$transaction((tx) => markOrderPaid(tx, deps(), paid(order).data)),
        t.vendor.prisma.$transaction((tx) => markOrderPaid(tx, deps(), paid(order).data)),
        t.vendor.prisma.$transaction((tx) => createShipments(tx, deps(), order)),
      ]);
    }
    const rows = await t.vendor.prisma.shipment.findMany({ where: { orderId: { in: orders.map((o) => o.orderId) } } });
    expect(rows).toHaveLength(30);
    expect(rows.filter((row) => row.status !== 'paid')).toEqual([]);
    const paidEvents = (await outboxEvents(t, vendorShipmentStatusChanged)).filter((e) => rows.some((row) => row.id === e.shipmentId));
    expect(paidEvents).toHaveLength(30);
  });
});

test('the order flow: created → paid → process → ship → deliver, events published in order', async () => {
  const order = orderCreated([store.storeId]);
  const id = order.subOrders[0].subOrderId;
  await deliver(created(order));
  await deliver(paid(order));
  await http(`${id}/process`).expect(204);
  await http(`${id}/ship`).send({ courier: 'carrier_a', trackingId: 'FLOW-1' }).expect(204);
  await http(`${id}/deliver`).expect(204);

  const chain = [['pending_payment', 'paid'], ['paid', 'processing'], ['processing', 'shipped'], ['shipped', 'delivered']];
  expect((await eventsOf(id)).map((e) => [e.previousStatus, e.status])).toEqual(chain);

  const { bus } = t.peer;
  const consumer = await bus.js.consumers.get(bus.naming.stream('VENDOR'), { filter_subjects: bus.naming.subject(vendorShipmentStatusChanged.type) });
  const seen: string[][] = [];
  await waitFor(async () => {
    const batch = await consumer.fetch({ max_messages: 100, expires: 1000 });
    for await (const msg of batch) {
      const { data } = msg.json<EventEnvelope<EventData<typeof vendorShipmentStatusChanged>>>();
      if (data.shipmentId === id) seen.push([data.previousStatus, data.status]);
    }
    return seen.length >= chain.length;
  });
  expect(seen).toEqual(chain);
});

describe('admin.shipment.booked', () => {
  test('sets the tracking fields and awaiting_pickup from paid, with a status event; the vendor can then ship', async () => {
    const { id } = await givenShipment(t, store.storeId, 'paid');
    await deliver(booked(id));
    expect(await shipmentRow(id)).toMatchObject({
      status: 'awaiting_pickup',
      courier: 'carrier_b',
      trackingId: 'BK-1',
      trackingUrl: 'https://tracking.carrier-b.example/parcels/BK-1',
    });
    expect(await eventsOf(id)).toEqual([expect.objectContaining({ status: 'awaiting_pickup', previousStatus: 'paid', trackingId: 'BK-1' })]);
    await http(`${id}/ship`).send({ courier: 'carrier_b', trackingId: 'BK-1' }).expect(204);
  });

  test("keeps the booking's own tracking URL; from processing too", async () => {
    const { id } = await givenShipment(t, store.storeId, 'processing');
    await deliver(booked(id, 'https://carrier-b.test/BK-1'));
    expect(await shipmentRow(id)).toMatchObject({ status: 'awaiting_pickup', trackingUrl: 'https://carrier-b.test/BK-1' });
  });

  test('changes nothing for a shipment that is not paid or processing, or unknown', async () => {
    const { id } = await givenShipment(t, store.storeId, 'cancelled');
    await deliver(booked(id));
    await deliver(booked(randomUUID()));
    expect(await shipmentRow(id)).toMatchObject({ status: 'cancelled', trackingId: null });
    expect(await eventsOf(id)).toEqual([]);
    expect(await t.vendor.prisma.parkedMessage.count()).toBe(0);
  });
});

describe('rpc.vendor.booking_context', () => {
  test("answers the shipment, its method's provider, recipient, items and the default pickup address", async () => {
    const owner = await givenStore(t);
    const method = await t.vendor.prisma.shippingMethod.create({
      data: { storeId: owner.storeId, name: 'Std', provider: 'carrier_b', type: 'flat', rateConfig: { rate: '8.00' } },
    });
    await t.vendor.prisma.pickupAddress.create({ data: { storeId: owner.storeId, label: 'Old', addressLine1: '1 Jalan Lama', postcode: '40000', state: 'Selangor' } });
    const home = await t.vendor.prisma.pickupAddress.create({
      data: { storeId: owner.storeId, label: 'Home', addressLine1: '2 Jalan Baru', postcode: '50000', state: 'Kuala Lumpur', isDefault: true },
    });
    const order = orderCreated([owner.storeId]);
    order.subOrders[0].shippingMethodId = method.id;
    await deliver(created(order));
    const id = order.subOrders[0].subOrderId;

    expect(await callRpc(t.peer.bus, vendorBookingContext, { shipmentId: id })).toEqual({
      shipment: { id, orderId: order.orderId, storeId: owner.storeId, status: 'pending_payment', shippingMethodId: method.id },
      provider: 'carrier_b',
      recipient: order.shippingAddress,
      items: [
        { productName: 'Batik Scarf', quantity: 2, weightKg: '0.250' },
        { productName: 'Songket', quantity: 1, weightKg: null },
      ],
      pickupAddress: { id: home.id, label: 'Home', addressLine1: '2 Jalan Baru', postcode: '50000', state: 'Kuala Lumpur' },
      // the quote is the sub-order's shipping fee at checkout
      quote: { amount: order.subOrders[0].shippingFee, currency: 'MYR' },
    });
  });

  test('answers null provider and pickup address when there are none; not_found for an unknown shipment', async () => {
    const owner = await givenStore(t);
    const { id } = await givenShipment(t, owner.storeId, 'paid');
    expect(await callRpc(t.peer.bus, vendorBookingContext, { shipmentId: id })).toMatchObject({ provider: null, pickupAddress: null });
    const err = await callRpc(t.peer.bus, vendorBookingContext, { shipmentId: randomUUID() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcFailedError);
    expect((err as RpcFailedError).code).toBe('not_found');
  });
});
