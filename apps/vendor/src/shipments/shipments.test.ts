import { randomUUID } from 'node:crypto';
import { shipmentDetail, shipmentPage, vendorShipmentStatusChanged, type SubOrderStatus } from '@pasar/contracts';
import { listenForRelayWakeUps, waitFor } from '@pasar/testkit';
import request from 'supertest';
import { givenShipment, orderCreated } from '../../test/shipments';
import { createShipments } from './events';
import { asVendor, givenStore, outboxEvents, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';

const BASE = '/api/v1/vendor/shipments';
let t: TestVendor;
let store: TestStore;

beforeAll(async () => {
  t = await startTestVendor({ CARRIER_A_TRACKING_URL: 'https://a.test/track/{trackingId}', CARRIER_B_TRACKING_URL: 'https://b.test/p?n={trackingId}' });
  store = await givenStore(t);
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.vendor.url);
const post = (id: string, action: string, body?: object) => {
  const req = http().post(`${BASE}/${id}/${action}`).set(store.headers());
  return body ? req.send(body) : req;
};
const shipmentRow = (id: string) => t.vendor.prisma.shipment.findUniqueOrThrow({ where: { id } });
const eventsOf = async (id: string) => (await outboxEvents(t, vendorShipmentStatusChanged)).filter((e) => e.shipmentId === id);
const shipBody = { courier: 'carrier_a', trackingId: 'A100' };

describe('GET /vendor/shipments', () => {
  let own: TestStore;
  const ids: string[] = [];

  beforeAll(async () => {
    own = await givenStore(t);
    const base = Date.parse('2026-03-01T00:00:00.000Z');
    for (let i = 0; i < 22; i += 1) {
      const status: SubOrderStatus = i % 3 === 0 ? 'shipped' : 'paid';
      ids.push((await givenShipment(t, own.storeId, status, new Date(base + i * 60_000))).id);
    }
    await givenShipment(t, store.storeId, 'paid');
  });

  const list = async (query: string) => shipmentPage.parse((await http().get(`${BASE}${query}`).set(own.headers()).expect(200)).body);

  test('answers newest first, 20 a page, with the page count', async () => {
    const first = await list('');
    expect(first.page).toBe(1);
    expect(first.totalPages).toBe(2);
    expect(first.shipments.map((s) => s.id)).toEqual([...ids].reverse().slice(0, 20));
    const second = await list('?page=2');
    expect(second.shipments.map((s) => s.id)).toEqual([ids[1], ids[0]]);
    expect((await list('?page=3')).shipments).toEqual([]);
  });

  test('a page past the end, or a status without shipments, answers none with the page count', async () => {
    expect(await list('?page=9')).toEqual({ shipments: [], page: 9, totalPages: 2 });
    expect(await list('?status=cancelled&page=2')).toEqual({ shipments: [], page: 2, totalPages: 1 });
  });

  test('filters by status', async () => {
    const shipped = await list('?status=shipped');
    expect(shipped.shipments.map((s) => s.id)).toEqual(ids.filter((_, i) => i % 3 === 0).reverse());
    expect(shipped.totalPages).toBe(1);
    expect(shipped.shipments.every((s) => s.status === 'shipped')).toBe(true);
    expect((await list('?status=cancelled')).shipments).toEqual([]);
  });

  test('answers the summary shape', async () => {
    const [newest] = (await list('')).shipments;
    expect(newest).toEqual({
      id: ids[21],
      orderId: expect.any(String),
      shortId: expect.stringMatching(/^PSR-/),
      status: 'shipped',
      total: '63.00',
      itemCount: 2,
      recipientName: 'Siti Aminah',
      courier: null,
      trackingId: null,
      trackingUrl: null,
      createdAt: '2026-03-01T00:21:00.000Z',
      paidAt: null,
      shippedAt: null,
      deliveredAt: null,
      cancelledAt: null,
    });
  });

  test.each([['?status=lost'], ['?page=0'], ['?page=abc']])('answers 400 for %s', async (query) => {
    const res = await http().get(`${BASE}${query}`).set(own.headers()).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });
});

describe('GET /vendor/shipments/{id}', () => {
  test('answers items, recipient address, tracking, timestamps and status', async () => {
    const { id, order } = await givenShipment(t, store.storeId, 'paid');
    await post(id, 'ship', { courier: 'carrier_b', trackingId: 'B 7' }).expect(204);
    const res = await http().get(`${BASE}/${id}`).set(store.headers()).expect(200);
    const detail = shipmentDetail.parse(res.body);
    const [scarf, songket] = order.subOrders[0].items;
    expect(detail).toEqual({
      id,
      orderId: order.orderId,
      shortId: order.shortId,
      storeId: store.storeId,
      status: 'shipped',
      shippingMethodId: null,
      subtotal: '55.00',
      shippingFee: '8.00',
      total: '63.00',
      itemCount: 2,
      recipientName: 'Siti Aminah',
      recipient: order.shippingAddress,
      items: [
        { id: scarf.orderItemId, productId: scarf.productId, variantId: null, productName: 'Batik Scarf', variantName: null, quantity: 2, unitPrice: '20.00', weightKg: '0.250' },
        { id: songket.orderItemId, productId: songket.productId, variantId: songket.variantId, productName: 'Songket', variantName: 'Red', quantity: 1, unitPrice: '15.00', weightKg: null },
      ],
      courier: 'carrier_b',
      trackingId: 'B 7',
      trackingUrl: 'https://b.test/p?n=B%207',
      cancelReason: null,
      createdAt: order.createdAt,
      paidAt: null,
      shippedAt: expect.any(String),
      deliveredAt: null,
      cancelledAt: null,
      updatedAt: detail.shippedAt,
    });
  });

  test('answers 404 for an unknown id', async () => {
    await http().get(`${BASE}/${randomUUID()}`).set(store.headers()).expect(404);
  });

  test("answers another store's shipment exactly as a missing one: 404 not_found, nothing of it", async () => {
    const other = await givenStore(t);
    const { id } = await givenShipment(t, other.storeId, 'paid');
    const theirs = await http().get(`${BASE}/${id}`).set(store.headers()).expect(404);
    const missing = await http().get(`${BASE}/${randomUUID()}`).set(store.headers()).expect(404);
    expect(theirs.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = ({ body }: { body: Record<string, unknown> }) => ({ ...body, instance: undefined, requestId: undefined });
    expect(problem(theirs)).toEqual(problem(missing));
    expect(JSON.stringify(theirs.body)).not.toContain(id);
    expect((await http().get(`${BASE}/${id}`).set(other.headers()).expect(200)).body.id).toBe(id);
  });

  test('answers items by product name, and a shipment without items with none', async () => {
    const order = orderCreated([store.storeId]);
    const [scarf, songket] = order.subOrders[0].items;
    order.subOrders[0].items = [{ ...songket, productName: 'Zapin Fan' }, { ...scarf, productName: 'Anklet' }];
    await t.vendor.prisma.$transaction((tx) => createShipments(tx, t.vendor, order));
    const { subOrderId } = order.subOrders[0];
    const detail = shipmentDetail.parse((await http().get(`${BASE}/${subOrderId}`).set(store.headers()).expect(200)).body);
    expect(detail.items.map((item) => item.productName)).toEqual(['Anklet', 'Zapin Fan']);
    await t.vendor.prisma.shipmentItem.deleteMany({ where: { shipmentId: subOrderId } });
    const bare = shipmentDetail.parse((await http().get(`${BASE}/${subOrderId}`).set(store.headers()).expect(200)).body);
    expect([bare.items, bare.itemCount]).toEqual([[], 0]);
  });

  test('a vendor without a store gets 403 no_store before the 400 of a bad id or query', async () => {
    const storeless = asVendor(randomUUID());
    expect((await http().get(`${BASE}/nope`).set(storeless).expect(403)).body.code).toBe('no_store');
    expect((await http().get(`${BASE}?page=0`).set(storeless).expect(403)).body.code).toBe('no_store');
    expect((await http().get(`${BASE}?page=0`).set(store.headers()).expect(400)).body.code).toBe('validation_failed');
  });
});

describe('POST /vendor/shipments/{id}/process', () => {
  test('moves paid → processing and emits the status change', async () => {
    const { id, order } = await givenShipment(t, store.storeId, 'paid');
    const res = await post(id, 'process').expect(204);
    expect(res.text).toBe('');
    expect((await shipmentRow(id)).status).toBe('processing');
    expect(await eventsOf(id)).toEqual([
      expect.objectContaining({ shipmentId: id, orderId: order.orderId, storeId: store.storeId, status: 'processing', previousStatus: 'paid', reason: null }),
    ]);
  });

  test.each<SubOrderStatus>(['pending_payment', 'processing', 'awaiting_pickup', 'shipped', 'delivered', 'cancelled'])('answers 409 invalid_status from %s', async (status) => {
    const { id } = await givenShipment(t, store.storeId, status);
    expect((await post(id, 'process').expect(409)).body).toMatchObject({ status: 409, code: 'invalid_status' });
    expect((await shipmentRow(id)).status).toBe(status);
    expect(await eventsOf(id)).toEqual([]);
  });
});

describe('POST /vendor/shipments/{id}/ship', () => {
  test.each<SubOrderStatus>(['paid', 'processing', 'awaiting_pickup'])('ships from %s: tracking from the template, shipped_at set, event emitted', async (status) => {
    const { id } = await givenShipment(t, store.storeId, status);
    const res = await post(id, 'ship', shipBody).expect(204);
    expect(res.text).toBe('');
    const row = await shipmentRow(id);
    expect(row).toMatchObject({ status: 'shipped', courier: 'carrier_a', trackingId: 'A100', trackingUrl: 'https://a.test/track/A100' });
    expect(row.shippedAt).toBeInstanceOf(Date);
    expect(await eventsOf(id)).toEqual([
      expect.objectContaining({ status: 'shipped', previousStatus: status, courier: 'carrier_a', trackingId: 'A100', trackingUrl: 'https://a.test/track/A100', shippedAt: row.shippedAt?.toISOString() }),
    ]);
  });

  test('keeps a given tracking URL; a re-ship from shipped corrects the tracking', async () => {
    const { id } = await givenShipment(t, store.storeId, 'paid');
    await post(id, 'ship', { ...shipBody, trackingUrl: 'https://mine.test/A100' }).expect(204);
    expect((await shipmentRow(id)).trackingUrl).toBe('https://mine.test/A100');
    await post(id, 'ship', { courier: 'carrier_b', trackingId: 'B200' }).expect(204);
    expect(await shipmentRow(id)).toMatchObject({ status: 'shipped', courier: 'carrier_b', trackingId: 'B200', trackingUrl: 'https://b.test/p?n=B200' });
    expect((await eventsOf(id)).map((e) => [e.previousStatus, e.status, e.trackingId])).toEqual([
      ['paid', 'shipped', 'A100'],
      ['shipped', 'shipped', 'B200'],
    ]);
  });

  test('courier other needs a trackingUrl: 400 tracking_url_required without one', async () => {
    const { id } = await givenShipment(t, store.storeId, 'paid');
    expect((await post(id, 'ship', { courier: 'other', trackingId: 'X1' }).expect(400)).body).toMatchObject({ code: 'tracking_url_required' });
    expect((await shipmentRow(id)).status).toBe('paid');
    await post(id, 'ship', { courier: 'other', trackingId: 'X1', trackingUrl: 'https://post.test/X1' }).expect(204);
    expect(await shipmentRow(id)).toMatchObject({ status: 'shipped', courier: 'other', trackingUrl: 'https://post.test/X1' });
  });

  test.each<SubOrderStatus>(['pending_payment', 'cancelled', 'delivered'])('answers 409 invalid_status from %s', async (status) => {
    const { id } = await givenShipment(t, store.storeId, status);
    expect((await post(id, 'ship', shipBody).expect(409)).body).toMatchObject({ code: 'invalid_status' });
    expect(await shipmentRow(id)).toMatchObject({ status, trackingId: null, shippedAt: null });
  });

  test.each([
    ['an unknown courier', { courier: 'dhl', trackingId: 'A1' }],
    ['a missing trackingId', { courier: 'carrier_a' }],
    ['a blank trackingId', { courier: 'carrier_a', trackingId: '  ' }],
    ['a trackingUrl that is not a URL', { courier: 'other', trackingId: 'A1', trackingUrl: 'not a url' }],
    ['a javascript: trackingUrl', { courier: 'other', trackingId: 'A1', trackingUrl: 'javascript:alert(1)' }],
  ])('answers 400 validation_failed for %s', async (_case, body) => {
    const { id } = await givenShipment(t, store.storeId, 'paid');
    expect((await post(id, 'ship', body).expect(400)).body.code).toBe('validation_failed');
    expect((await shipmentRow(id)).status).toBe('paid');
  });
});

describe('POST /vendor/shipments/{id}/deliver', () => {
  test('moves shipped → delivered with delivered_at; a second deliver is 409 already_delivered', async () => {
    const { id } = await givenShipment(t, store.storeId, 'shipped');
    expect((await post(id, 'deliver').expect(204)).text).toBe('');
    const row = await shipmentRow(id);
    expect(row.status).toBe('delivered');
    expect(row.deliveredAt).toBeInstanceOf(Date);
    expect((await post(id, 'deliver').expect(409)).body).toMatchObject({ code: 'already_delivered' });
    expect(await eventsOf(id)).toEqual([expect.objectContaining({ status: 'delivered', previousStatus: 'shipped', deliveredAt: row.deliveredAt?.toISOString() })]);
  });

  test.each<SubOrderStatus>(['paid', 'processing', 'awaiting_pickup'])('is allowed from %s (DESIGN §5: refused only when delivered or cancelled)', async (status) => {
    const { id } = await givenShipment(t, store.storeId, status);
    await post(id, 'deliver').expect(204);
    expect((await shipmentRow(id)).status).toBe('delivered');
  });

  test('answers 409 invalid_status for a cancelled shipment', async () => {
    const { id } = await givenShipment(t, store.storeId, 'cancelled');
    expect((await post(id, 'deliver').expect(409)).body).toMatchObject({ code: 'invalid_status' });
    expect((await shipmentRow(id)).deliveredAt).toBeNull();
  });
});

describe('POST /vendor/shipments/{id}/cancel', () => {
  test.each<SubOrderStatus>(['paid', 'processing'])('cancels from %s with the reason; the event carries it', async (status) => {
    const { id } = await givenShipment(t, store.storeId, status);
    expect((await post(id, 'cancel', { reason: ' Out of stock ' }).expect(204)).text).toBe('');
    const row = await shipmentRow(id);
    expect(row).toMatchObject({ status: 'cancelled', cancelReason: 'Out of stock' });
    expect(await eventsOf(id)).toEqual([
      expect.objectContaining({ status: 'cancelled', previousStatus: status, reason: 'Out of stock', cancelledAt: row.cancelledAt?.toISOString() }),
    ]);
  });

  test('accepts an empty object and no body at all', async () => {
    const a = await givenShipment(t, store.storeId, 'paid');
    const b = await givenShipment(t, store.storeId, 'paid');
    await post(a.id, 'cancel', {}).expect(204);
    await post(b.id, 'cancel').expect(204);
    expect(await shipmentRow(a.id)).toMatchObject({ status: 'cancelled', cancelReason: null });
    expect((await shipmentRow(b.id)).status).toBe('cancelled');
  });

  test.each<SubOrderStatus>(['pending_payment', 'awaiting_pickup', 'shipped', 'delivered', 'cancelled'])('answers 400 invalid_status from %s', async (status) => {
    const { id } = await givenShipment(t, store.storeId, status);
    expect((await post(id, 'cancel', {}).expect(400)).body).toMatchObject({ status: 400, code: 'invalid_status' });
    expect(await shipmentRow(id)).toMatchObject({ status, cancelledAt: null });
    expect(await eventsOf(id)).toEqual([]);
  });

  test('answers 400 validation_failed for a reason that is not a string', async () => {
    const { id } = await givenShipment(t, store.storeId, 'paid');
    await post(id, 'cancel', { reason: 42 }).expect(400);
    expect((await shipmentRow(id)).status).toBe('paid');
  });
});

describe("a vendor's moves hand their event to the relay after the commit", () => {
  test('ship and deliver: each status change is published without waking the relay', async () => {
    const { id } = await givenShipment(t, store.storeId, 'paid');
    const wakeUps = await listenForRelayWakeUps(t.vendor.config.DATABASE_URL);
    try {
      const publishedCount = async () => {
        const rows = await t.vendor.prisma.outbox.findMany({ where: { type: vendorShipmentStatusChanged.type, payload: { path: ['data', 'shipmentId'], equals: id } } });
        return rows.filter((row) => row.publishedAt !== null).length;
      };
      await post(id, 'ship', shipBody).expect(204);
      await waitFor(async () => (await publishedCount()) === 1, 10000);
      await post(id, 'deliver').expect(204);
      await waitFor(async () => (await publishedCount()) === 2, 10000);
      expect((await eventsOf(id)).map((e) => e.status)).toEqual(['shipped', 'delivered']);
      expect(wakeUps.count()).toBe(0);
    } finally {
      await wakeUps.stop();
    }
  });
});

describe('concurrent ship and cancel of one shipment', () => {
  test('exactly one wins, the other gets its 4xx, and one status event is emitted', async () => {
    const shipments = await Promise.all(Array.from({ length: 8 }, () => givenShipment(t, store.storeId, 'paid')));
    await Promise.all(
      shipments.map(async ({ id }) => {
        const [ship, cancel] = await Promise.all([post(id, 'ship', shipBody), post(id, 'cancel', { reason: 'race' })]);
        const row = await shipmentRow(id);
        if (ship.status === 204) {
          expect(cancel.status).toBe(400);
          expect(cancel.body.code).toBe('invalid_status');
          expect(row.status).toBe('shipped');
        } else {
          expect([ship.status, cancel.status]).toEqual([409, 204]);
          expect(row.status).toBe('cancelled');
          expect(row.trackingId).toBeNull();
        }
        expect((await eventsOf(id)).map((e) => e.status)).toEqual([row.status]);
      }),
    );
  });
});
