import { randomUUID } from 'node:crypto';
import { adminShipment, adminWebhookDelivery, adminWebhookDeliveryPage, createdWebhookEndpoint } from '@pasar/contracts';
import { signedHeaders, startReceiver, waitFor, type Receiver } from '@pasar/testkit';
import request from 'supertest';
import { z } from 'zod';
import { givenShipment } from '../../test/shipments';
import { asCustomer, givenStore, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';

let t: TestVendor;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // one failed attempt leaves a delivery failing (pending) for an hour
  t = await startTestVendor({ WEBHOOK_RETRY_WAITS: '1h', WEBHOOK_POLL_MS: '50' });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t?.stop();
});

const http = () => request(t.vendor.url);
const asAdmin = () => signedHeaders({ userId: randomUUID(), role: 'admin' });
const LIST = '/api/v1/admin/vendor/webhook-deliveries';

/** A store whose endpoint answers 500, with a token in its URL's query. */
async function failingStore(name: string): Promise<{ store: TestStore; receiver: Receiver; endpointId: string }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  receiver.fallback = { status: 500, body: 'down' };
  const store = await givenStore(t, { name });
  const res = await http()
    .post('/api/v1/vendor/webhooks')
    .set(store.headers())
    .send({ url: `${receiver.url}?token=s3cret-token`, events: ['sub_order.created'] })
    .expect(201);
  return { store, receiver, endpointId: createdWebhookEndpoint.parse(res.body).id };
}

/** A ping that failed once (answered 500): it waits an hour for its retry. */
async function failedPing(f: { store: TestStore; receiver: Receiver; endpointId: string }): Promise<string> {
  const before = f.receiver.received.length;
  const res = await http().post(`/api/v1/vendor/webhooks/${f.endpointId}/test`).set(f.store.headers()).expect(201);
  const id = z.object({ id: z.uuid() }).parse(res.body).id;
  await waitFor(async () => f.receiver.received.length > before && (await t.vendor.prisma.webhookAttempt.count({ where: { deliveryId: id } })) > 0, 15_000);
  return id;
}

const list = async (query: string) => adminWebhookDeliveryPage.parse((await http().get(`${LIST}${query}`).set(asAdmin()).expect(200)).body);

describe('GET /admin/vendor/webhook-deliveries', () => {
  test('failing deliveries of every store, newest first: store, host only, event, attempts, last error, next attempt', async () => {
    const a = await failingStore('Kedai Satu');
    const b = await failingStore('Kedai Dua');
    const first = await failedPing(a);
    const second = await failedPing(b);

    const page = await list('?status=failing');
    const ids = page.deliveries.map((d) => d.id);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    const listed = page.deliveries.find((d) => d.id === first);
    expect(listed).toEqual({
      id: first,
      storeId: a.store.storeId,
      storeName: 'Kedai Satu',
      endpointId: a.endpointId,
      endpointHost: new URL(a.receiver.url).host,
      endpointEnabled: true,
      eventType: 'ping',
      status: 'pending',
      attempts: 1,
      lastError: 'HTTP 500',
      lastAttemptAt: expect.any(String),
      nextAttemptAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(new Date(listed!.nextAttemptAt!).getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(JSON.stringify(page)).not.toContain('s3cret-token');
    expect((await list('?status=failed')).deliveries.map((d) => d.id)).not.toContain(first);
  });

  test('a disabled endpoint fails its deliveries: listed as failed, never as failing', async () => {
    const f = await failingStore('Kedai Tiga');
    const id = await failedPing(f);
    await http().patch(`/api/v1/vendor/webhooks/${f.endpointId}`).set(f.store.headers()).send({ enabled: false }).expect(200);
    const failed = (await list('?status=failed')).deliveries.find((d) => d.id === id);
    expect(failed).toMatchObject({ status: 'failed', endpointEnabled: false, nextAttemptAt: null, lastError: 'HTTP 500' });
    expect((await list('?status=failing')).deliveries.map((d) => d.id)).not.toContain(id);
  });

  test('pages by cursor without repeats or gaps', async () => {
    const f = await failingStore('Kedai Empat');
    await failedPing(f);
    await failedPing(f);
    const all = (await list('?status=failing&limit=100')).deliveries.map((d) => d.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?status=failing&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.deliveries.length).toBeLessThanOrEqual(1);
      seen.push(...page.deliveries.map((d) => d.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  test.each([
    ['an unknown status', '?status=pending', 'validation_failed'],
    ['a limit over 100', '?limit=101', 'validation_failed'],
    ['a cursor this API did not answer', '?cursor=bm9wZQ', 'invalid_cursor'],
  ])('%s (%s): 400 with its code', async (_name, query, code) => {
    const res = await http().get(`${LIST}${query}`).set(asAdmin()).expect(400);
    expect(res.body.code).toBe(code);
  });

  test('a vendor or a customer: 403', async () => {
    const f = await failingStore('Kedai Lima');
    expect((await http().get(LIST).set(f.store.headers()).expect(403)).body.code).toBe('forbidden');
    expect((await http().get(LIST).set(asCustomer()).expect(403)).body.code).toBe('forbidden');
  });
});

describe('POST /admin/vendor/webhook-deliveries/{id}/retry', () => {
  test('a failing delivery is sent again now, with the same webhook-id', async () => {
    const f = await failingStore('Kedai Enam');
    const id = await failedPing(f);
    const res = await http().post(`${LIST}/${id}/retry`).set(asAdmin()).expect(200);
    expect(adminWebhookDelivery.parse(res.body)).toMatchObject({ id, status: 'pending' });
    await waitFor(() => f.receiver.received.length >= 2, 15_000);
    const [firstTry, secondTry] = f.receiver.received;
    expect(secondTry.headers['webhook-id']).toBe(firstTry.headers['webhook-id']);
    await waitFor(async () => (await t.vendor.prisma.webhookAttempt.count({ where: { deliveryId: id } })) === 2, 15_000);
  });

  test('a failed delivery of an enabled endpoint is pending again and tried', async () => {
    const f = await failingStore('Kedai Tujuh');
    const id = await failedPing(f);
    await t.vendor.prisma.webhookDelivery.update({ where: { id }, data: { status: 'failed', nextAttemptAt: null } });
    f.receiver.fallback = { status: 200 };
    await http().post(`${LIST}/${id}/retry`).set(asAdmin()).expect(200);
    await waitFor(async () => (await t.vendor.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).status === 'delivered', 15_000);
  });

  test('an attempt running now: 409 delivery_pending; a disabled endpoint: 409 endpoint_disabled; nothing changes', async () => {
    const f = await failingStore('Kedai Lapan');
    const id = await failedPing(f);
    const claimedUntil = new Date(Date.now() + 60_000);
    await t.vendor.prisma.webhookDelivery.update({ where: { id }, data: { claimedUntil } });
    expect((await http().post(`${LIST}/${id}/retry`).set(asAdmin()).expect(409)).body.code).toBe('delivery_pending');
    expect((await t.vendor.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).claimedUntil).toEqual(claimedUntil);

    await t.vendor.prisma.webhookDelivery.update({ where: { id }, data: { claimedUntil: null } });
    await http().patch(`/api/v1/vendor/webhooks/${f.endpointId}`).set(f.store.headers()).send({ enabled: false }).expect(200);
    expect((await http().post(`${LIST}/${id}/retry`).set(asAdmin()).expect(409)).body.code).toBe('endpoint_disabled');
    expect((await t.vendor.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).status).toBe('failed');
  });

  test('unknown: 404; not a uuid: 400; a vendor, even the owner: 403', async () => {
    expect((await http().post(`${LIST}/${randomUUID()}/retry`).set(asAdmin()).expect(404)).body.code).toBe('not_found');
    expect((await http().post(`${LIST}/nope/retry`).set(asAdmin()).expect(400)).body.code).toBe('validation_failed');
    const f = await failingStore('Kedai Sembilan');
    const id = await failedPing(f);
    expect((await http().post(`${LIST}/${id}/retry`).set(f.store.headers()).expect(403)).body.code).toBe('forbidden');
  });
});

describe('GET /admin/vendor/orders/{orderId}/shipments', () => {
  test("the order's shipments with their store and tracking", async () => {
    const store = await givenStore(t, { name: 'Kedai Kain' });
    const { id, order } = await givenShipment(t, store.storeId, 'paid');
    await t.vendor.prisma.shipment.update({ where: { id }, data: { status: 'shipped', courier: 'carrier_a', trackingId: 'TRK-9', shippedAt: new Date() } });
    const res = await http().get(`/api/v1/admin/vendor/orders/${order.orderId}/shipments`).set(asAdmin()).expect(200);
    const shipments = z.array(adminShipment).parse(res.body);
    expect(shipments).toEqual([
      expect.objectContaining({ id, storeId: store.storeId, storeName: 'Kedai Kain', status: 'shipped', courier: 'carrier_a', trackingId: 'TRK-9', cancelledAt: null }),
    ]);
    expect(shipments[0].shippedAt).not.toBeNull();
  });

  test('no shipments of the order: 404; not a uuid: 400; a vendor: 403', async () => {
    expect((await http().get(`/api/v1/admin/vendor/orders/${randomUUID()}/shipments`).set(asAdmin()).expect(404)).body.code).toBe('not_found');
    expect((await http().get('/api/v1/admin/vendor/orders/x/shipments').set(asAdmin()).expect(400)).body.code).toBe('validation_failed');
    const store = await givenStore(t, { name: 'Kedai Tenun' });
    const { order } = await givenShipment(t, store.storeId, 'paid');
    expect((await http().get(`/api/v1/admin/vendor/orders/${order.orderId}/shipments`).set(store.headers()).expect(403)).body.code).toBe('forbidden');
  });
});
