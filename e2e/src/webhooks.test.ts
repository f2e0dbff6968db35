/**
 * Black-box, through the gateway: vendor webhooks across checkout and vendor. Two stores each add
 * an endpoint (a real HTTP receiver on loopback) for every event; a customer orders from store A,
 * pays, the vendor ships and delivers, and the customer asks to return an item. Store A's receiver
 * gets every event of it, signed as Standard Webhooks specifies (verified with the
 * `standardwebhooks` package), with no customer data; store B's receiver gets nothing.
 */
import { randomUUID } from 'node:crypto';
import { WEBHOOK_EVENT_TYPES, webhookEventPayload, type WebhookEventPayload } from '@pasar/contracts';
import { startReceiver, waitFor, type Receiver, type TestBus } from '@pasar/testkit';
import { Webhook } from 'standardwebhooks';
import { connectStackBus } from './support/bus';
import { newShopper, openStore, pollUntil, submit, type E2eStore } from './support/commerce';
import { show } from './support/http';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

interface OrderView {
  id: string;
  status: string;
  subOrders: { id: string; status: string; items: { id: string; productName: string; quantity: number; unitPrice: string; lineTotal: string }[] }[];
}

let e2e: E2eStack | undefined;
let testBus: TestBus | undefined;
let storeA: E2eStore | undefined;
let storeB: E2eStore | undefined;
const receivers: Receiver[] = [];

beforeAll(async () => {
  e2e = await startE2eStack();
  testBus = await connectStackBus(e2e);
  storeA = await openStore(e2e, testBus, { basePrice: '25.00', stock: 10 }, 8);
  storeB = await openStore(e2e, testBus, { basePrice: '30.00', stock: 10 }, 8);
}, 180_000);

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await testBus?.bus.close();
  await e2e?.stop();
}, 60_000);

function env(): { e2e: E2eStack; a: E2eStore; b: E2eStore } {
  if (!e2e || !storeA || !storeB) throw new Error('the stack did not start');
  return { e2e, a: storeA, b: storeB };
}

/** A receiver on loopback and an endpoint of the store for every event; the endpoint's secret. */
async function subscribe(store: E2eStore): Promise<{ receiver: Receiver; secret: string }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await store.vendor.post<{ id: string; secret: string }>(`${API}/vendor/webhooks`, { url: receiver.url, events: WEBHOOK_EVENT_TYPES });
  if (created.status !== 201) throw new Error(`create endpoint: ${show(created)}`);
  return { receiver, secret: created.body.secret };
}

describe('vendor webhooks through the gateway', () => {
  it(
    "order → pay → ship → deliver → return: store A's receiver gets each event, verified; store B's none",
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack, a, b } = env();
        const hookA = await subscribe(a);
        const hookB = await subscribe(b);

        const shopper = await newShopper(stack, 'hooks');
        const placed = await submit(shopper.client, { addressId: shopper.addressId, items: [{ productId: a.productId, quantity: 2 }], shippingMethodId: a.shippingMethodId }, randomUUID());
        if (placed.status !== 201) throw new Error(`submit: ${show(placed)}`);
        const orderId = placed.body.orderId;
        expect((await shopper.client.post(`${API}/checkout/payment/initiate/${orderId}`)).status).toBe(200);
        const paid = await pollUntil<OrderView>(shopper.client, `/account/orders/${orderId}`, (o) => o.status === 'paid');
        const shipmentId = paid.subOrders[0].id;
        await pollUntil<{ status: string }>(a.vendor, `/vendor/shipments/${shipmentId}`, (s) => s.status === 'paid');

        expect((await a.vendor.post(`${API}/vendor/shipments/${shipmentId}/process`)).status).toBe(204);
        expect((await a.vendor.post(`${API}/vendor/shipments/${shipmentId}/ship`, { courier: 'carrier_a', trackingId: `TRK-${randomUUID().slice(0, 8)}` })).status).toBe(204);
        expect((await a.vendor.post(`${API}/vendor/shipments/${shipmentId}/deliver`)).status).toBe(204);
        const delivered = await pollUntil<OrderView>(shopper.client, `/account/orders/${orderId}`, (o) => o.status === 'delivered');
        const item = delivered.subOrders[0].items[0];
        const requested = await shopper.client.post(`${API}/account/returns`, { orderId, reason: 'damaged', items: [{ orderItemId: item.id, productName: item.productName }] });
        expect(requested.status).toBe(201);
        const returnId = (requested.headers.get('location') ?? '').split('/').pop();

        // created, paid, shipped, delivered, return requested: five deliveries, each once
        const messages = await waitFor(() => hookA.receiver.received.length >= 5 && hookA.receiver.received, 60_000, 100);
        const verifier = new Webhook(hookA.secret);
        const events = messages.map((m) => webhookEventPayload.parse(verifier.verify(m.body, m.headers as Record<string, string>)));
        const summary = (e: WebhookEventPayload) => ('status' in e.data ? `${e.type}:${e.data.status}` : e.type);
        expect(events.map(summary).sort()).toEqual(
          ['sub_order.created:pending_payment', 'sub_order.paid:paid', 'shipment.status_changed:shipped', 'shipment.status_changed:delivered', 'return.requested'].sort(),
        );
        expect(new Set(messages.map((m) => m.headers['webhook-id'])).size).toBe(5);
        // another secret does not verify them
        expect(() => new Webhook(hookB.secret).verify(messages[0].body, messages[0].headers as Record<string, string>)).toThrow();

        const returned = events.find((e) => e.type === 'return.requested');
        expect(returned?.data).toMatchObject({
          returnId,
          orderId,
          subOrderId: shipmentId,
          storeId: a.storeId,
          reason: 'damaged',
          items: [{ orderItemId: item.id, productName: item.productName, quantity: item.quantity, unitPrice: item.unitPrice, lineTotal: item.lineTotal }],
          amount: item.lineTotal,
        });
        for (const m of messages) {
          expect(m.body).not.toContain(shopper.userId);
          expect(m.body).not.toMatch(/customerId|email|password|token|whsec_/i);
        }

        // nothing more arrives at A, nothing at all at B
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(hookA.receiver.received).toHaveLength(5);
        expect(hookB.receiver.received).toHaveLength(0);
      },
    ),
    240_000,
  );
});
