import { createHmac, randomUUID } from 'node:crypto';
import {
  checkoutOrderCreated,
  checkoutReturnRequested,
  createdWebhookEndpoint,
  notifyEmailRequested,
  rotatedWebhookSecret,
  webhookDelivery,
  webhookDeliveryPage,
  webhookEndpoint,
  webhookEventPayload,
  type WebhookDeliveryView,
} from '@pasar/contracts';
import { startReceiver, waitFor, type ReceivedWebhook, type Receiver } from '@pasar/testkit';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { givenShipment, orderCreated } from '../../test/shipments';
import { asCustomer, asVendor, envelope, givenStore, outboxEvents, publishAndWait, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';
import { claimDueDeliveries, recordAttempt, type WebhookDeps } from './delivery';
import { sqlPoolOf } from '@pasar/db';
import { postWebhook, systemResolve } from './http';
import { sendDelivery } from './worker';
import { createEndpoint } from './webhooks';

const BASE = '/api/v1/vendor/webhooks';
let t: TestVendor;
let store: TestStore;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startTestVendor({ WEBHOOK_RETRY_WAITS: '200ms,200ms,200ms', WEBHOOK_POLL_MS: '50' });
  store = await givenStore(t);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t?.stop();
});

const http = () => request(t.vendor.url);
const deps = (overrides: Partial<WebhookDeps> = {}): WebhookDeps => ({ ...t.vendor, resolve: systemResolve, ...overrides });

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function givenEndpoint(owner: TestStore, url: string, events: string[] = ['sub_order.created', 'sub_order.paid', 'sub_order.cancelled', 'shipment.status_changed']) {
  const res = await http().post(BASE).set(owner.headers()).send({ url, events, description: 'warehouse' }).expect(201);
  return createdWebhookEndpoint.parse(res.body);
}

const deliveries = async (owner: TestStore, endpointId: string, query = '') =>
  webhookDeliveryPage.parse((await http().get(`${BASE}/${endpointId}/deliveries${query}`).set(owner.headers()).expect(200)).body).deliveries;

const ping = async (owner: TestStore, endpointId: string): Promise<WebhookDeliveryView> =>
  webhookDelivery.parse((await http().post(`${BASE}/${endpointId}/test`).set(owner.headers()).expect(201)).body);

async function deliveryOf(owner: TestStore, endpointId: string, id: string): Promise<WebhookDeliveryView> {
  const found = (await deliveries(owner, endpointId)).find((d) => d.id === id);
  if (!found) throw new Error(`delivery ${id} not listed`);
  return found;
}

/** The Standard Webhooks signature by hand: base64 HMAC-SHA256, keyed with the secret's base64-decoded bytes, of id.timestamp.body. */
function handSignature(secret: string, message: ReceivedWebhook): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${String(message.headers['webhook-id'])}.${String(message.headers['webhook-timestamp'])}.${message.body}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}
const signaturesOf = (message: ReceivedWebhook) => String(message.headers['webhook-signature']).split(' ');

describe('delivery of shipment events', () => {
  test('a shipment marked shipped reaches the receiver, signed as Standard Webhooks specifies', async () => {
    const r = await receiver();
    const endpoint = await givenEndpoint(store, r.url, ['shipment.status_changed']);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { id } = await givenShipment(t, store.storeId, 'paid');
    await http().post(`/api/v1/vendor/shipments/${id}/ship`).set(store.headers()).send({ courier: 'carrier_a', trackingId: 'A100' }).expect(204);

    const [message] = await waitFor(() => r.received.length > 0 && r.received, 15_000);
    // the reference library verifies it...
    const verified = webhookEventPayload.parse(new Webhook(endpoint.secret).verify(message.body, message.headers as Record<string, string>));
    // ...and so does the spec, by hand
    expect(signaturesOf(message)).toEqual([handSignature(endpoint.secret, message)]);
    expect(String(message.headers['webhook-id'])).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(message.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(message.headers['content-type']).toBe('application/json');

    expect(verified).toMatchObject({
      type: 'shipment.status_changed',
      data: { shipmentId: id, subOrderId: id, storeId: store.storeId, status: 'shipped', previousStatus: 'paid', sequence: 3, total: '63.00', subtotal: '55.00', shippingFee: '8.00', courier: 'carrier_a', trackingId: 'A100' },
    });
    // nothing of the customer beyond what GET /vendor/shipments/{id} shows; no secret
    expect(message.body).not.toMatch(/customerId|password|secret|whsec_/);

    const listed = await waitFor(async () => (await deliveries(store, endpoint.id)).find((d) => d.status === 'delivered'));
    expect(listed).toMatchObject({ eventType: 'shipment.status_changed', webhookId: message.headers['webhook-id'], nextAttemptAt: null });
    expect(listed.attempts).toEqual([{ attemptedAt: expect.any(String), httpStatus: 200, durationMs: expect.any(Number), error: null, responseBody: 'ok' }]);
  });

  test('sub_order.created and sub_order.paid come from checkout events, one delivery per event, sequence per shipment', async () => {
    const own = await givenStore(t);
    const r = await receiver();
    await givenEndpoint(own, r.url, ['sub_order.created', 'sub_order.paid']);
    const order = orderCreated([own.storeId]);
    const event = envelope(checkoutOrderCreated, order);
    await publishAndWait(t.peer.bus, event, 'shipments-order-created', 'CHECKOUT');
    // a redelivered copy of the event (past JetStream's duplicate window) makes no second delivery
    await publishAndWait(t.peer.bus, event, 'shipments-order-created', 'CHECKOUT', randomUUID());
    await t.vendor.prisma.shipment.update({ where: { id: order.subOrders[0].subOrderId }, data: { status: 'paid', paidAt: new Date() } });

    const messages = await waitFor(() => r.received.length >= 2 && r.received, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const payloads = messages.map((m) => webhookEventPayload.parse(JSON.parse(m.body)));
    expect(payloads.map((p) => p.type).sort()).toEqual(['sub_order.created', 'sub_order.paid']);
    const bySequence = payloads.map((p) => ('sequence' in p.data ? [p.type, p.data.sequence] : [])).sort((a, b) => Number(a[1]) - Number(b[1]));
    expect(bySequence).toEqual([
      ['sub_order.created', 1],
      ['sub_order.paid', 2],
    ]);
    expect(r.received).toHaveLength(2);
  });

  test('an endpoint gets only the events it subscribed to', async () => {
    const own = await givenStore(t);
    const r = await receiver();
    const endpoint = await givenEndpoint(own, r.url, ['sub_order.cancelled']);
    const { id } = await givenShipment(t, own.storeId, 'paid');
    await http().post(`/api/v1/vendor/shipments/${id}/process`).set(own.headers()).expect(204);
    await http().post(`/api/v1/vendor/shipments/${id}/cancel`).set(own.headers()).send({ reason: 'out of stock' }).expect(204);
    const [message] = await waitFor(() => r.received.length > 0 && r.received, 15_000);
    expect(webhookEventPayload.parse(JSON.parse(message.body))).toMatchObject({ type: 'sub_order.cancelled', data: { status: 'cancelled', previousStatus: 'processing', cancelReason: 'out of stock' } });
    expect((await deliveries(own, endpoint.id)).map((d) => d.eventType)).toEqual(['sub_order.cancelled']);
  });
});

describe('return.requested from checkout', () => {
  const returnRequested = (storeId: string) => ({
    returnId: randomUUID(),
    orderId: randomUUID(),
    subOrderId: randomUUID(),
    storeId,
    reason: 'damaged' as const,
    comment: 'the lid was cracked',
    items: [
      { orderItemId: randomUUID(), productId: randomUUID(), variantId: null, productName: 'Kopi Tenom', variantName: null, quantity: 2, unitPrice: '25.00', lineTotal: '50.00' },
    ],
    amount: '50.00',
    requestedAt: new Date().toISOString(),
  });

  test("one delivery per subscribed endpoint of the store, keyed by the event id; a redelivery writes none; others get nothing", async () => {
    const own = await givenStore(t);
    const other = await givenStore(t);
    const [subscribed, unsubscribed, otherStore] = [await receiver(), await receiver(), await receiver()];
    const endpoint = await givenEndpoint(own, subscribed.url, ['return.requested']);
    await givenEndpoint(own, unsubscribed.url, ['shipment.status_changed']);
    await givenEndpoint(other, otherStore.url, ['return.requested']);

    const data = returnRequested(own.storeId);
    const event = envelope(checkoutReturnRequested, data);
    await publishAndWait(t.peer.bus, event, 'webhooks-return-requested', 'CHECKOUT');
    // the same event again past JetStream's duplicate window (a relay's republish): no second delivery
    await publishAndWait(t.peer.bus, event, 'webhooks-return-requested', 'CHECKOUT', randomUUID());

    const [message] = await waitFor(() => subscribed.received.length > 0 && subscribed.received, 15_000);
    const verified = webhookEventPayload.parse(new Webhook(endpoint.secret).verify(message.body, message.headers as Record<string, string>));
    expect(verified).toEqual({ type: 'return.requested', timestamp: event.occurredAt, data });
    expect(message.headers['webhook-id']).toBe(`msg_${event.id.replaceAll('-', '')}`);
    expect(message.body).not.toMatch(/customerId|email|token|password/i);

    const rows = await t.vendor.prisma.webhookDelivery.findMany({ where: { eventId: event.id } });
    expect(rows.map((row) => row.endpointId)).toEqual([endpoint.id]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(subscribed.received).toHaveLength(1);
    expect(unsubscribed.received).toHaveLength(0);
    expect(otherStore.received).toHaveLength(0);
  });

  test('a return of a store without a subscribed endpoint writes no delivery and is acknowledged', async () => {
    const own = await givenStore(t);
    const event = envelope(checkoutReturnRequested, returnRequested(own.storeId));
    await publishAndWait(t.peer.bus, event, 'webhooks-return-requested', 'CHECKOUT');
    expect(await t.vendor.prisma.webhookDelivery.count({ where: { eventId: event.id } })).toBe(0);
  });

  test('an endpoint cannot subscribe to an unknown event type (400)', async () => {
    const r = await receiver();
    const res = await http().post(BASE).set(store.headers()).send({ url: r.url, events: ['return.approved'] }).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(await t.vendor.prisma.webhookEndpoint.count({ where: { url: r.url } })).toBe(0);
  });
});

describe('retries and failures', () => {
  test('500, 500, 200: three attempts with one webhook-id, then delivered', async () => {
    const r = await receiver();
    r.answers.push({ status: 500, body: 'boom' }, { status: 500 });
    const endpoint = await givenEndpoint(store, r.url);
    const queued = await ping(store, endpoint.id);
    expect(queued).toMatchObject({ eventType: 'ping', status: 'pending', attempts: [] });

    const delivered = await waitFor(async () => {
      const d = await deliveryOf(store, endpoint.id, queued.id);
      return d.status === 'delivered' && d;
    }, 15_000);
    expect(delivered.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 200]);
    expect(delivered.attempts[0].responseBody).toBe('boom');
    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map((m) => m.headers['webhook-id']))).toEqual(new Set([queued.webhookId]));
    const body = webhookEventPayload.parse(JSON.parse(r.received[2].body));
    expect(body).toMatchObject({ type: 'ping', data: { endpointId: endpoint.id } });
  });

  test('a network error is retried; after the last wait the delivery failed', async () => {
    const r = await receiver();
    const endpoint = await givenEndpoint(store, r.url);
    await r.close();
    const queued = await ping(store, endpoint.id);
    const failed = await waitFor(async () => {
      const d = await deliveryOf(store, endpoint.id, queued.id);
      return d.status === 'failed' && d;
    }, 15_000);
    // the first attempt and one per wait of WEBHOOK_RETRY_WAITS
    expect(failed.attempts).toHaveLength(4);
    expect(failed.attempts.every((a) => a.httpStatus === null && a.error)).toBe(true);
    expect(failed.nextAttemptAt).toBeNull();
    const view = webhookEndpoint.parse((await http().get(`${BASE}/${endpoint.id}`).set(store.headers()).expect(200)).body);
    expect(view.failingSince).not.toBeNull();
    expect(view.enabled).toBe(true);
  });

  test('400: failed at once, no retry', async () => {
    const r = await receiver();
    r.fallback = { status: 400, body: 'x'.repeat(5000) };
    const endpoint = await givenEndpoint(store, r.url);
    const queued = await ping(store, endpoint.id);
    const failed = await waitFor(async () => {
      const d = await deliveryOf(store, endpoint.id, queued.id);
      return d.status === 'failed' && d;
    }, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(r.received).toHaveLength(1);
    expect(failed.attempts).toHaveLength(1);
    expect(failed.attempts[0]).toMatchObject({ httpStatus: 400 });
    // stored up to 1 KiB
    expect(failed.attempts[0].responseBody).toHaveLength(1024);
  });

  test('410: the endpoint is disabled, the vendor e-mailed, nothing more is sent', async () => {
    const own = await givenStore(t);
    const r = await receiver();
    r.fallback = { status: 410 };
    const endpoint = await givenEndpoint(own, r.url);
    const queued = await ping(own, endpoint.id);
    const view = await waitFor(async () => {
      const e = webhookEndpoint.parse((await http().get(`${BASE}/${endpoint.id}`).set(own.headers()).expect(200)).body);
      return !e.enabled && e;
    }, 15_000);
    expect(view).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect((await deliveryOf(own, endpoint.id, queued.id)).status).toBe('failed');
    const mails = (await outboxEvents(t, notifyEmailRequested)).filter((m) => m.template === 'webhook_endpoint_disabled' && m.vars.url === r.url);
    expect(mails).toHaveLength(1);
    expect(mails[0].to).toMatch(/@/);

    // a new event of the store makes no delivery, a test ping is refused, and the receiver hears nothing more
    const { id } = await givenShipment(t, own.storeId, 'paid');
    await http().post(`/api/v1/vendor/shipments/${id}/ship`).set(own.headers()).send({ courier: 'carrier_a', trackingId: 'A1' }).expect(204);
    await http().post(`${BASE}/${endpoint.id}/test`).set(own.headers()).expect(409);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(r.received).toHaveLength(1);
    expect(await deliveries(own, endpoint.id)).toHaveLength(1);

    // re-enabling replays nothing by itself; a replay since a time sends the failed one again
    r.fallback = { status: 200 };
    await http().patch(`${BASE}/${endpoint.id}`).set(own.headers()).send({ enabled: true }).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.received).toHaveLength(1);
    const replay = await http().post(`${BASE}/${endpoint.id}/replay`).set(own.headers()).send({ since: new Date(Date.now() - 3_600_000).toISOString() }).expect(200);
    expect(replay.body).toEqual({ requeued: 1 });
    await waitFor(() => r.received.length === 2, 15_000);
    expect(r.received[1].headers['webhook-id']).toBe(queued.webhookId);
  });

  test('a failed delivery is sent again on request, with the same webhook-id; a pending one is 409', async () => {
    const r = await receiver();
    r.answers.push({ status: 404 });
    const endpoint = await givenEndpoint(store, r.url);
    const queued = await ping(store, endpoint.id);
    await waitFor(async () => (await deliveryOf(store, endpoint.id, queued.id)).status === 'failed', 15_000);
    const retried = webhookDelivery.parse((await http().post(`${BASE}/deliveries/${queued.id}/retry`).set(store.headers()).expect(200)).body);
    expect(retried.status).toBe('pending');
    await waitFor(async () => (await deliveryOf(store, endpoint.id, queued.id)).status === 'delivered', 15_000);
    expect(r.received.map((m) => m.headers['webhook-id'])).toEqual([queued.webhookId, queued.webhookId]);

    r.fallback = 'hold';
    const held = await ping(store, endpoint.id);
    const problem = await http().post(`${BASE}/deliveries/${held.id}/retry`).set(store.headers()).expect(409);
    expect(problem.body).toMatchObject({ code: 'delivery_pending' });
  });

  test('429 with Retry-After waits as asked (longer than the schedule)', async () => {
    const r = await receiver();
    r.answers.push({ status: 429, headers: { 'retry-after': '2' } });
    const endpoint = await givenEndpoint(store, r.url);
    await ping(store, endpoint.id);
    await waitFor(() => r.received.length === 2, 15_000);
    expect(r.received[1].receivedAt - r.received[0].receivedAt).toBeGreaterThanOrEqual(1_900);
  });

  test('an endpoint failing for WEBHOOK_DISABLE_AFTER (3 days) is disabled and its vendor e-mailed', async () => {
    const own = await givenStore(t);
    const r = await receiver();
    const endpoint = await givenEndpoint(own, r.url);
    const delivery = await t.vendor.prisma.webhookDelivery.create({
      data: { id: randomUUID(), endpointId: endpoint.id, eventId: randomUUID(), eventType: 'ping', payload: { type: 'ping' }, nextAttemptAt: new Date(Date.now() + 365 * 86_400_000) },
    });
    const failAt = async (at: Date) => {
      await t.vendor.prisma.webhookDelivery.update({ where: { id: delivery.id }, data: { nextAttemptAt: at, claimedUntil: null, status: 'pending' } });
      const claimed = (await claimDueDeliveries(deps({ clock: () => at }), 50)).filter((d) => d.id === delivery.id);
      expect(claimed).toHaveLength(1);
      await recordAttempt(deps({ clock: () => at }), claimed[0], at, { status: 503, durationMs: 5, error: null, body: null, retryAfter: null });
      await t.vendor.prisma.webhookDelivery.update({ where: { id: delivery.id }, data: { nextAttemptAt: new Date(Date.now() + 365 * 86_400_000) } });
    };
    const start = new Date(Date.now() + 400 * 86_400_000);
    await failAt(start);
    await failAt(new Date(start.getTime() + 2 * 86_400_000));
    expect((await t.vendor.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).enabled).toBe(true);
    await failAt(new Date(start.getTime() + 3 * 86_400_000));
    const disabled = await t.vendor.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failing' });
    const mails = (await outboxEvents(t, notifyEmailRequested)).filter((m) => m.template === 'webhook_endpoint_disabled' && m.vars.url === r.url);
    expect(mails).toHaveLength(1);
  });
});

describe('recording attempts', () => {
  /** A ping of the endpoint due at `at` (far ahead, so the running worker leaves it to the test). */
  const farDelivery = (endpointId: string, at: Date) =>
    t.vendor.prisma.webhookDelivery.create({
      data: { id: randomUUID(), endpointId, eventId: randomUUID(), eventType: 'ping', payload: { type: 'ping', timestamp: at.toISOString(), data: { endpointId } }, nextAttemptAt: at },
    });
  const claimAt = async (at: Date, id: string) => (await claimDueDeliveries(deps({ clock: () => at }), 50)).filter((d) => d.id === id);

  test('an attempt that cannot be recorded leaves its delivery claimable when the lease ends, sent once more with the same webhook-id', async () => {
    const own = await givenStore(t);
    const r = await receiver();
    const endpoint = await givenEndpoint(own, r.url);
    const at = new Date(Date.now() + 500 * 86_400_000);
    const delivery = await farDelivery(endpoint.id, at);
    const [claimed] = await claimAt(at, delivery.id);
    expect(claimed).toMatchObject({ id: delivery.id, attempt: 1 });

    // the database refuses the recording statement (a real failure: a constraint no attempt row passes)
    await t.vendor.prisma.$executeRawUnsafe('ALTER TABLE webhook_attempt ADD CONSTRAINT refuse_attempts CHECK (false) NOT VALID');
    try {
      await expect(sendDelivery(deps({ clock: () => at }), claimed)).rejects.toThrow(/refuse_attempts/);
    } finally {
      await t.vendor.prisma.$executeRawUnsafe('ALTER TABLE webhook_attempt DROP CONSTRAINT refuse_attempts');
    }
    expect(r.received).toHaveLength(1);
    // nothing of the attempt was written: still pending and leased, no attempt row
    const leased = await t.vendor.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attemptLog: true } });
    expect(leased).toMatchObject({ status: 'pending', attempts: 1, attemptLog: [] });
    const leaseEnd = (leased.claimedUntil as Date).getTime();
    expect(leaseEnd).toBe(at.getTime() + deps().config.WEBHOOK_TIMEOUT_MS + 5_000);

    // not claimable while the lease runs; claimable once it ended
    expect(await claimAt(new Date(leaseEnd - 1_000), delivery.id)).toEqual([]);
    const after = new Date(leaseEnd + 1);
    const [again] = await claimAt(after, delivery.id);
    expect(again).toMatchObject({ id: delivery.id, attempt: 2 });
    await sendDelivery(deps({ clock: () => after }), again);

    expect(r.received).toHaveLength(2);
    expect(r.received[1].headers['webhook-id']).toBe(r.received[0].headers['webhook-id']);
    const done = await t.vendor.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attemptLog: true } });
    expect(done).toMatchObject({ status: 'delivered', claimedUntil: null, attemptLog: [expect.objectContaining({ httpStatus: 200 })] });
  });

  test('attempts finishing together are recorded together (group commit), each delivery with its own outcome', async () => {
    const own = await givenStore(t);
    const [okEndpoint, failingEndpoint] = [await givenEndpoint(own, (await receiver()).url), await givenEndpoint(own, (await receiver()).url)];
    const at = new Date(Date.now() + 600 * 86_400_000);
    const rows = await Promise.all([okEndpoint, okEndpoint, okEndpoint, failingEndpoint, failingEndpoint].map((e) => farDelivery(e.id, at)));
    const claimed = (await claimDueDeliveries(deps({ clock: () => at }), 50)).filter((d) => rows.some((row) => row.id === d.id));
    expect(claimed).toHaveLength(5);

    // counts the recording statements on the real pool (every call passes through)
    const statements: string[] = [];
    const pool = sqlPoolOf(t.vendor.prisma);
    const query = pool.query.bind(pool);
    const spy = jest.spyOn(pool, 'query').mockImplementation(((statement: { name?: string }, ...rest: unknown[]) => {
      if (typeof statement === 'object' && statement.name) statements.push(statement.name);
      return (query as (...args: unknown[]) => unknown)(statement, ...rest);
    }) as typeof pool.query);
    try {
      const answers = claimed.map((d) => (d.endpointId === okEndpoint.id ? { status: 200, body: 'ok' } : { status: 503, body: 'busy' }));
      await Promise.all(claimed.map((d, i) => recordAttempt(deps({ clock: () => at }), d, at, { ...answers[i], durationMs: 3, error: null, retryAfter: null })));
    } finally {
      spy.mockRestore();
    }
    // the first two go at once (two in flight), the three that arrive meanwhile in one statement
    expect(statements.filter((name) => name === 'vendor-webhook-record-attempts').length).toBeLessThanOrEqual(3);

    const after = await t.vendor.prisma.webhookDelivery.findMany({ where: { id: { in: rows.map((row) => row.id) } }, include: { attemptLog: true } });
    expect(after).toHaveLength(5);
    for (const d of after) {
      if (d.endpointId === okEndpoint.id) expect(d).toMatchObject({ status: 'delivered', nextAttemptAt: null, claimedUntil: null, attemptLog: [expect.objectContaining({ httpStatus: 200, responseBody: 'ok' })] });
      else expect(d).toMatchObject({ status: 'pending', nextAttemptAt: new Date(at.getTime() + 200), claimedUntil: null, attemptLog: [expect.objectContaining({ httpStatus: 503, responseBody: 'busy' })] });
    }
    const endpoints = await t.vendor.prisma.webhookEndpoint.findMany({ where: { id: { in: [okEndpoint.id, failingEndpoint.id] } } });
    expect(Object.fromEntries(endpoints.map((e) => [e.id, e.failingSince]))).toEqual({ [okEndpoint.id]: null, [failingEndpoint.id]: at });
  });

});

describe('stores are kept apart', () => {
  test("store A's endpoint never receives store B's events, and A cannot read or touch B's", async () => {
    const a = await givenStore(t);
    const b = await givenStore(t);
    const [ra, rb] = [await receiver(), await receiver()];
    const endpointA = await givenEndpoint(a, ra.url);
    const endpointB = await givenEndpoint(b, rb.url);
    const { id } = await givenShipment(t, b.storeId, 'paid');
    await http().post(`/api/v1/vendor/shipments/${id}/ship`).set(b.headers()).send({ courier: 'carrier_a', trackingId: 'B1' }).expect(204);
    await waitFor(() => rb.received.length > 0, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ra.received).toHaveLength(0);
    expect(await deliveries(a, endpointA.id)).toEqual([]);

    const [delivery] = await deliveries(b, endpointB.id);
    await http().get(`${BASE}/${endpointB.id}/deliveries`).set(a.headers()).expect(404);
    await http().get(`${BASE}/${endpointB.id}`).set(a.headers()).expect(404);
    await http().patch(`${BASE}/${endpointB.id}`).set(a.headers()).send({ enabled: false }).expect(404);
    await http().post(`${BASE}/${endpointB.id}/rotate-secret`).set(a.headers()).expect(404);
    await http().post(`${BASE}/${endpointB.id}/test`).set(a.headers()).expect(404);
    await http().post(`${BASE}/deliveries/${delivery.id}/retry`).set(a.headers()).expect(404);
    await http().delete(`${BASE}/${endpointB.id}`).set(a.headers()).expect(404);
    const listA = (await http().get(BASE).set(a.headers()).expect(200)).body as { id: string }[];
    expect(listA.map((e) => e.id)).toEqual([endpointA.id]);
  });
});

describe('secret rotation', () => {
  test('for 24 h deliveries carry signatures with both secrets, after that only the new one', async () => {
    const r = await receiver();
    const endpoint = await givenEndpoint(store, r.url);
    const rotated = rotatedWebhookSecret.parse((await http().post(`${BASE}/${endpoint.id}/rotate-secret`).set(store.headers()).expect(200)).body);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const rotatedAt = Date.now();
    expect(Date.parse(rotated.previousSecretExpiresAt) - rotatedAt).toBeGreaterThan(23.9 * 3_600_000);
    const view = webhookEndpoint.parse((await http().get(`${BASE}/${endpoint.id}`).set(store.headers()).expect(200)).body);
    expect(view.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
    expect(JSON.stringify(view)).not.toContain('whsec_');

    const sendAt = async (at: Date) => {
      const delivery = await t.vendor.prisma.webhookDelivery.create({
        data: { id: randomUUID(), endpointId: endpoint.id, eventId: randomUUID(), eventType: 'ping', payload: { type: 'ping', timestamp: at.toISOString(), data: { endpointId: endpoint.id } }, nextAttemptAt: at },
      });
      const claimed = (await claimDueDeliveries(deps({ clock: () => at }), 50)).find((d) => d.id === delivery.id);
      if (!claimed) throw new Error('not claimed');
      const before = r.received.length;
      await sendDelivery(deps({ clock: () => at }), claimed);
      return r.received[before];
    };
    // an hour after the rotation: both, each verifying on its own (the library's tolerance is checked against now, so verify by hand)
    const within = await sendAt(new Date(rotatedAt + 3_600_000));
    expect(signaturesOf(within)).toEqual([handSignature(rotated.secret, within), handSignature(endpoint.secret, within)]);
    // 25 hours after: only the new one
    const after = await sendAt(new Date(rotatedAt + 25 * 3_600_000));
    expect(signaturesOf(after)).toEqual([handSignature(rotated.secret, after)]);
  });

  test('a receiver using the old secret keeps verifying with the reference library during the overlap', async () => {
    const r = await receiver();
    const endpoint = await givenEndpoint(store, r.url);
    const rotated = rotatedWebhookSecret.parse((await http().post(`${BASE}/${endpoint.id}/rotate-secret`).set(store.headers()).expect(200)).body);
    await ping(store, endpoint.id);
    const [message] = await waitFor(() => r.received.length > 0 && r.received, 15_000);
    const headers = message.headers as Record<string, string>;
    expect(() => new Webhook(endpoint.secret).verify(message.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(message.body, headers)).not.toThrow();
  });
});

describe('URL safety', () => {
  const production = () => deps({ config: { ...t.vendor.config, NODE_ENV: 'production' } });
  const create = (url: string, resolve = systemResolve) =>
    createEndpoint({ ...production(), resolve }, store.storeId, 'vendor@example.com', { url, events: ['sub_order.paid'] });

  test.each([
    ['https://10.0.0.1/hooks'],
    ['https://169.254.169.254/latest/meta-data'],
    ['https://[::1]/hooks'],
    ['https://[::ffff:10.0.0.1]/hooks'],
    ['https://localhost/hooks'],
    ['http://hooks.example.com/in'],
  ])('in production %s is refused with 400 unsafe_url', async (url) => {
    await expect(create(url, async () => ['127.0.0.1'])).rejects.toMatchObject({ status: 400, code: 'unsafe_url' });
  });

  test('in production a host resolving to a private or metadata address is refused; a public one is accepted', async () => {
    await expect(create('https://hooks.example.com/in', async () => ['10.0.0.1'])).rejects.toMatchObject({ status: 400, code: 'unsafe_url' });
    await expect(create('https://hooks.example.com/in', async () => ['93.184.216.34', '169.254.169.254'])).rejects.toMatchObject({ code: 'unsafe_url' });
    const { endpoint } = await create('https://hooks.example.com/in', async () => ['93.184.216.34']);
    expect(endpoint.url).toBe('https://hooks.example.com/in');
    await t.vendor.prisma.webhookEndpoint.delete({ where: { id: endpoint.id } });
  });

  test('at connect time the host is resolved again and checked (DNS rebinding): a private answer is never connected to', async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    const result = await postWebhook(`http://rebind.example:${port}/hooks`, {}, '{}', { timeoutMs: 2000, policy: 'production', resolve: async () => ['127.0.0.1'] });
    expect(result).toMatchObject({ status: null, error: expect.stringMatching(/^refused: /) });
    // the same in development connects to exactly the address resolved once (the checked one)
    const local = await postWebhook(`http://localhost:${port}/hooks`, {}, '{}', { timeoutMs: 2000, policy: 'local', resolve: async () => ['127.0.0.1'] });
    expect(local.status).toBe(200);
    expect(r.received).toHaveLength(1);
  });

  test('in development and test http is accepted to loopback only', async () => {
    const res = await http().post(BASE).set(store.headers()).send({ url: 'http://hooks.example.com/in', events: ['sub_order.paid'] }).expect(400);
    expect(res.body).toMatchObject({ code: 'unsafe_url' });
  });

  test('redirects are not followed: a 302 fails the delivery at once', async () => {
    const r = await receiver();
    r.fallback = { status: 302, headers: { location: 'http://169.254.169.254/' } };
    const endpoint = await givenEndpoint(store, r.url);
    const queued = await ping(store, endpoint.id);
    const failed = await waitFor(async () => {
      const d = await deliveryOf(store, endpoint.id, queued.id);
      return d.status === 'failed' && d;
    }, 15_000);
    expect(failed.attempts.map((a) => a.httpStatus)).toEqual([302]);
  });
});

describe('endpoint management', () => {
  test('create answers the secret once; list and get never; patch and delete', async () => {
    const own = await givenStore(t);
    const created = await givenEndpoint(own, 'http://127.0.0.1:9/hooks', ['sub_order.paid']);
    expect(created).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['sub_order.paid'], description: 'warehouse', enabled: true, disabledReason: null });
    const list = await http().get(BASE).set(own.headers()).expect(200);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const patched = webhookEndpoint.parse(
      (await http().patch(`${BASE}/${created.id}`).set(own.headers()).send({ events: ['sub_order.paid', 'shipment.status_changed'], description: null }).expect(200)).body,
    );
    expect(patched).toMatchObject({ events: ['sub_order.paid', 'shipment.status_changed'], description: null });
    const disabled = webhookEndpoint.parse((await http().patch(`${BASE}/${created.id}`).set(own.headers()).send({ enabled: false }).expect(200)).body);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'vendor' });
    await http().delete(`${BASE}/${created.id}`).set(own.headers()).expect(204);
    await http().get(`${BASE}/${created.id}`).set(own.headers()).expect(404);
  });

  test('bad input is a 400 problem; at most 10 endpoints per store (409)', async () => {
    const own = await givenStore(t);
    for (const body of [
      { url: 'not a url', events: ['sub_order.paid'] },
      { url: 'https://hooks.example.com', events: [] },
      { url: 'https://hooks.example.com', events: ['return.refunded'] },
      { url: 'https://hooks.example.com', events: ['sub_order.paid', 'sub_order.paid'] },
      { url: 'ftp://hooks.example.com', events: ['sub_order.paid'] },
      { url: 'https://hooks.example.com', events: ['sub_order.paid'], extra: 1 },
    ]) {
      const res = await http().post(BASE).set(own.headers()).send(body).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    await http().patch(`${BASE}/${randomUUID()}`).set(own.headers()).send({}).expect(400);
    for (let i = 0; i < 10; i += 1) await givenEndpoint(own, `http://127.0.0.1:9/hooks/${i}`);
    const res = await http().post(BASE).set(own.headers()).send({ url: 'http://127.0.0.1:9/hooks/11', events: ['sub_order.paid'] }).expect(409);
    expect(res.body).toMatchObject({ code: 'endpoint_limit' });
    expect(await t.vendor.prisma.webhookEndpoint.count({ where: { storeId: own.storeId } })).toBe(10);
  });

  test('deliveries page by cursor, newest first, and filter by status', async () => {
    const own = await givenStore(t);
    const r = await receiver();
    r.fallback = { status: 400 };
    const endpoint = await givenEndpoint(own, r.url);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await ping(own, endpoint.id)).id);
    await waitFor(async () => (await deliveries(own, endpoint.id, '?status=failed&limit=100')).length === 5, 15_000);
    const first = webhookDeliveryPage.parse((await http().get(`${BASE}/${endpoint.id}/deliveries?limit=2`).set(own.headers()).expect(200)).body);
    expect(first.deliveries.map((d) => d.id)).toEqual([ids[4], ids[3]]);
    const second = webhookDeliveryPage.parse((await http().get(`${BASE}/${endpoint.id}/deliveries?limit=2&cursor=${first.nextCursor}`).set(own.headers()).expect(200)).body);
    expect(second.deliveries.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    const third = webhookDeliveryPage.parse((await http().get(`${BASE}/${endpoint.id}/deliveries?limit=2&cursor=${second.nextCursor}`).set(own.headers()).expect(200)).body);
    expect(third).toEqual({ deliveries: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    expect(await deliveries(own, endpoint.id, '?status=delivered')).toEqual([]);
    await http().get(`${BASE}/${endpoint.id}/deliveries?cursor=bogus`).set(own.headers()).expect(400);
  });

  test('a vendor without a store is 403 no_store; another role is 403', async () => {
    const res = await http().get(BASE).set(store.headers()).expect(200);
    expect(Array.isArray(res.body)).toBe(true);
    const stranger = await http().get(BASE).set(asVendor(randomUUID())).expect(403);
    expect(stranger.body).toMatchObject({ code: 'no_store' });
    await http().get(BASE).set(asCustomer()).expect(403);
  });

  test('/metrics reports attempts by outcome, attempt latency, queue depth and disabled endpoints', async () => {
    const metrics = await http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/pasar_webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} \d+/);
    expect(metrics.text).toContain('pasar_webhook_attempt_duration_seconds_bucket');
    expect(metrics.text).toMatch(/pasar_webhook_queue_depth\{[^}]*\} \d+/);
    expect(metrics.text).toMatch(/pasar_webhook_disabled_endpoints\{[^}]*\} [1-9]/);
  });
});
