import { randomUUID } from 'node:crypto';
import { eventEnvelopeSchema, vendorShipmentStatusChanged, type EventEnvelope } from '@pasar/contracts';
import { sqlPoolOf } from '@pasar/db';
import { silentLog } from '@pasar/testkit';
import type { SqlTx } from '@pasar/bus';
import { orderCreated, type OrderCreated } from '../../test/shipments';
import { givenStore, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';
import { closeUnpaidOrder, createShipments, createShipmentsClaiming, createShipmentsOf, markOrderPaid } from './events';

// The order handlers build vendor.shipment.status_changed in SQL (no enqueueEvent, no zod on the
// way out): these tests hold them to what enqueueEvent would have written, on the consumers' plain
// pg client.

let t: TestVendor;
let store: TestStore;
let neighbour: TestStore;

beforeAll(async () => {
  t = await startTestVendor();
  store = await givenStore(t);
  neighbour = await givenStore(t);
});
afterAll(async () => {
  await t?.stop();
});

const AT = new Date('2026-04-02T08:30:15.123Z');
const deps = () => ({ config: t.vendor.config, log: silentLog, clock: () => AT });

/** Runs `work` in a plain pg transaction on the vendor's own pool, as the consumers do. */
async function inPgTransaction(work: (tx: SqlTx) => Promise<void>): Promise<void> {
  const client = await sqlPoolOf(t.vendor.prisma).connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

async function envelopesOf(shipmentIds: string[]): Promise<{ rowId: string; envelope: EventEnvelope }[]> {
  const rows = await t.vendor.prisma.outbox.findMany({ where: { type: vendorShipmentStatusChanged.type }, orderBy: { seq: 'asc' } });
  return rows
    .map((row) => ({ rowId: row.id, envelope: row.payload as unknown as EventEnvelope }))
    .filter(({ envelope }) => shipmentIds.includes((envelope.data as { shipmentId: string }).shipmentId));
}

/** The envelope is one enqueueEvent would write: its schema and the contract's data schema accept it unchanged. */
function expectContractShaped({ rowId, envelope }: { rowId: string; envelope: EventEnvelope }): void {
  expect(envelope.id).toBe(rowId);
  expect(eventEnvelopeSchema.parse(envelope)).toEqual(envelope);
  expect(vendorShipmentStatusChanged.data.parse(envelope.data)).toEqual(envelope.data);
  expect(envelope).toMatchObject({ type: vendorShipmentStatusChanged.type, version: vendorShipmentStatusChanged.version, source: 'vendor' });
  expect(Date.parse(envelope.occurredAt)).not.toBeNaN();
}

test('paid before created, on a pg client: the shipments start paid, one contract-shaped event each, in shipment id order', async () => {
  const order = orderCreated([store.storeId, neighbour.storeId]);
  await inPgTransaction((tx) => markOrderPaid(tx, deps(), { orderId: order.orderId, shortId: order.shortId, customerId: order.customerId, isB2b: false, subOrderIds: [], total: order.total, paidAt: '2026-04-01T10:00:00.000Z' }));
  await inPgTransaction((tx) => createShipments(tx, deps(), order));
  const ids = order.subOrders.map((s) => s.subOrderId).sort();
  const rows = await t.vendor.prisma.shipment.findMany({ where: { orderId: order.orderId }, orderBy: { id: 'asc' } });
  expect(rows.map((r) => [r.id, r.status, r.paidAt, r.updatedAt])).toEqual(ids.map((id) => [id, 'paid', new Date('2026-04-01T10:00:00.000Z'), AT]));
  expect(await t.vendor.prisma.shipmentItem.count({ where: { shipmentId: { in: ids } } })).toBe(4);
  const events = await envelopesOf(ids);
  expect(events.map((e) => (e.envelope.data as { shipmentId: string }).shipmentId)).toEqual(ids);
  events.forEach(expectContractShaped);
  const storeOf = new Map(order.subOrders.map((s) => [s.subOrderId, s.storeId]));
  expect(events.map((e) => e.envelope.data)).toEqual(
    ids.map((id) => ({
      shipmentId: id,
      orderId: order.orderId,
      storeId: storeOf.get(id),
      status: 'paid',
      previousStatus: 'pending_payment',
      courier: null,
      trackingId: null,
      trackingUrl: null,
      shippedAt: null,
      deliveredAt: null,
      cancelledAt: null,
      reason: null,
      changedAt: AT.toISOString(),
    })),
  );
});

test('closed after created, on a pg client: cancelled with its time and reason, the event carries them; a second close changes nothing', async () => {
  const order = orderCreated([store.storeId]);
  const id = order.subOrders[0].subOrderId;
  await inPgTransaction((tx) => createShipments(tx, deps(), order));
  expect(await t.vendor.prisma.shipment.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'pending_payment', paidAt: null, cancelledAt: null });
  expect(await envelopesOf([id])).toEqual([]); // created pending_payment: no status event
  const change = { orderId: order.orderId, isB2b: false, status: 'expired' as const, previousStatus: 'pending_payment' as const, changedAt: '2026-04-01T11:00:00.456Z' };
  await inPgTransaction((tx) => closeUnpaidOrder(tx, deps(), change));
  await inPgTransaction((tx) => closeUnpaidOrder(tx, deps(), change));
  expect(await t.vendor.prisma.shipment.findUniqueOrThrow({ where: { id } })).toMatchObject({
    status: 'cancelled',
    cancelledAt: new Date(change.changedAt),
    cancelReason: 'order expired',
    updatedAt: AT,
  });
  const events = await envelopesOf([id]);
  expect(events).toHaveLength(1);
  expectContractShaped(events[0]);
  expect(events[0].envelope.data).toMatchObject({ status: 'cancelled', previousStatus: 'pending_payment', cancelledAt: change.changedAt, reason: 'order expired', changedAt: AT.toISOString() });
});

test('a batch of orders in one statement: each order as createShipments alone would leave it (paid first, closed first, plain, an unknown store skipped)', async () => {
  const paidFirst = orderCreated([store.storeId]);
  const closedFirst = orderCreated([neighbour.storeId]);
  const plain = orderCreated([store.storeId, neighbour.storeId], new Date('2026-04-01T09:00:00.000Z'));
  const partlyUnknown = orderCreated([store.storeId, randomUUID()]);
  await inPgTransaction((tx) => markOrderPaid(tx, deps(), { orderId: paidFirst.orderId, shortId: paidFirst.shortId, customerId: paidFirst.customerId, isB2b: false, subOrderIds: [], total: paidFirst.total, paidAt: '2026-04-01T10:00:00.000Z' }));
  await inPgTransaction((tx) => closeUnpaidOrder(tx, deps(), { orderId: closedFirst.orderId, isB2b: false, status: 'cancelled', previousStatus: 'pending_payment', changedAt: '2026-04-01T11:00:00.000Z' }));
  await inPgTransaction((tx) => createShipmentsOf(tx, deps(), [paidFirst, closedFirst, plain, partlyUnknown]));

  const statusOf = async (order: typeof plain) =>
    (await t.vendor.prisma.shipment.findMany({ where: { orderId: order.orderId }, orderBy: { id: 'asc' } })).map((r) => ({
      id: r.id,
      orderId: r.orderId,
      shortId: r.shortId,
      customerId: r.customerId,
      storeId: r.storeId,
      status: r.status,
      paidAt: r.paidAt,
      cancelledAt: r.cancelledAt,
      cancelReason: r.cancelReason,
      createdAt: r.createdAt,
    }));
  const expected = (order: typeof plain, subOrders: typeof plain.subOrders, fields: object) =>
    subOrders
      .map((s) => ({ id: s.subOrderId, orderId: order.orderId, shortId: order.shortId, customerId: order.customerId, storeId: s.storeId, paidAt: null, cancelledAt: null, cancelReason: null, createdAt: new Date(order.createdAt), ...fields }))
      .sort((a, b) => a.id.localeCompare(b.id));
  expect(await statusOf(paidFirst)).toEqual(expected(paidFirst, paidFirst.subOrders, { status: 'paid', paidAt: new Date('2026-04-01T10:00:00.000Z') }));
  expect(await statusOf(closedFirst)).toEqual(
    expected(closedFirst, closedFirst.subOrders, { status: 'cancelled', cancelledAt: new Date('2026-04-01T11:00:00.000Z'), cancelReason: 'order cancelled' }),
  );
  expect(await statusOf(plain)).toEqual(expected(plain, plain.subOrders, { status: 'pending_payment' }));
  expect(await statusOf(partlyUnknown)).toEqual(expected(partlyUnknown, partlyUnknown.subOrders.slice(0, 1), { status: 'pending_payment' }));
  // every item of every known sub-order, none of the unknown store's
  const known = [paidFirst, closedFirst, plain].flatMap((o) => o.subOrders).concat(partlyUnknown.subOrders[0]);
  expect(await t.vendor.prisma.shipmentItem.count({ where: { shipmentId: { in: known.map((s) => s.subOrderId) } } })).toBe(known.length * 2);
  expect(await t.vendor.prisma.shipmentItem.count({ where: { shipmentId: partlyUnknown.subOrders[1].subOrderId } })).toBe(0);
  // a status event for the paid and the cancelled shipment only
  const events = await envelopesOf(known.map((s) => s.subOrderId));
  events.forEach(expectContractShaped);
  expect(events.map((e) => [(e.envelope.data as { shipmentId: string }).shipmentId, (e.envelope.data as { status: string }).status]).sort()).toEqual(
    [
      [paidFirst.subOrders[0].subOrderId, 'paid'],
      [closedFirst.subOrders[0].subOrderId, 'cancelled'],
    ].sort(),
  );
  // the batch again (a redelivery that got past the inbox): nothing changes, no second event
  await inPgTransaction((tx) => createShipmentsOf(tx, deps(), [paidFirst, closedFirst, plain, partlyUnknown]));
  expect(await statusOf(plain)).toEqual(expected(plain, plain.subOrders, { status: 'pending_payment' }));
  expect(await envelopesOf(known.map((s) => s.subOrderId))).toHaveLength(2);
});

describe("the created consumer's one statement (createShipmentsClaiming: inbox claim, locks and shipments, autocommit)", () => {
  const consumer = 'vendor-test-claiming';
  const claimOf = (events: { id: string; data: OrderCreated }[]) => ({
    consumer,
    eventIds: events.map((e) => e.id),
    lockKeys: [...new Set(events.map((e) => `order:${e.data.orderId}`))].sort(),
  });
  const claimAndHandle = (events: { id: string; data: OrderCreated }[]) => createShipmentsClaiming(sqlPoolOf(t.vendor.prisma), deps(), events, claimOf(events));
  const shipmentsOf = (order: OrderCreated) => t.vendor.prisma.shipment.findMany({ where: { orderId: order.orderId }, orderBy: { id: 'asc' } });

  test('makes what createShipmentsOf makes, for the new events only: a claimed event again, alone or in a later batch, changes nothing', async () => {
    const first = { id: randomUUID(), data: orderCreated([store.storeId, neighbour.storeId]) };
    const second = { id: randomUUID(), data: orderCreated([store.storeId, randomUUID()]) };
    await claimAndHandle([first, second]);
    expect((await shipmentsOf(first.data)).map((r) => [r.id, r.status])).toEqual(first.data.subOrders.map((s) => [s.subOrderId, 'pending_payment']).sort());
    expect((await shipmentsOf(second.data)).map((r) => r.id)).toEqual([second.data.subOrders[0].subOrderId]); // the unknown store's sub-order gets none
    expect(await t.vendor.prisma.inbox.count({ where: { consumer, eventId: { in: [first.id, second.id] } } })).toBe(2);
    // the first event claimed: its shipment moved on meanwhile stays as it is when it comes again
    await t.vendor.prisma.shipment.update({ where: { id: first.data.subOrders[0].subOrderId }, data: { status: 'processing' } });
    const third = { id: randomUUID(), data: orderCreated([store.storeId]) };
    await claimAndHandle([first, third]);
    await claimAndHandle([first]);
    expect((await t.vendor.prisma.shipment.findUniqueOrThrow({ where: { id: first.data.subOrders[0].subOrderId } })).status).toBe('processing');
    expect(await shipmentsOf(third.data)).toHaveLength(1);
    expect(await t.vendor.prisma.inbox.count({ where: { consumer, eventId: { in: [first.id, second.id, third.id] } } })).toBe(3);
  });

  test('paid first and still open when the statement starts: the statement waits for the order lock and then sees the payment (the shipment starts paid, with its event)', async () => {
    const order = orderCreated([store.storeId]);
    const client = await sqlPoolOf(t.vendor.prisma).connect();
    let claimed = false;
    try {
      await client.query('BEGIN');
      await markOrderPaid(client, deps(), { orderId: order.orderId, shortId: order.shortId, customerId: order.customerId, isB2b: false, subOrderIds: [], total: order.total, paidAt: '2026-04-01T10:00:00.000Z' });
      const claiming = claimAndHandle([{ id: randomUUID(), data: order }]).then(() => (claimed = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(claimed).toBe(false); // waiting for the order's lock
      await client.query('COMMIT');
      await claiming;
    } finally {
      client.release();
    }
    const [row] = await shipmentsOf(order);
    expect([row.status, row.paidAt]).toEqual(['paid', new Date('2026-04-01T10:00:00.000Z')]);
    expect(await envelopesOf([row.id])).toHaveLength(1);
  });

  test('a statement that fails leaves nothing behind: no inbox row, no shipment', async () => {
    const order = orderCreated([store.storeId]);
    const bad = { id: randomUUID(), data: { ...order, subOrders: [{ ...order.subOrders[0], subtotal: 'not money' }] } };
    await expect(claimAndHandle([bad])).rejects.toThrow();
    expect(await t.vendor.prisma.inbox.count({ where: { consumer, eventId: bad.id } })).toBe(0);
    expect(await shipmentsOf(order)).toHaveLength(0);
    await claimAndHandle([{ id: bad.id, data: order }]); // the same event, now good, is handled
    expect(await shipmentsOf(order)).toHaveLength(1);
  });
});
