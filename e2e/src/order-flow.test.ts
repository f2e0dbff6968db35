/**
 * Black-box, through the gateway: the whole order flow across checkout and vendor. A customer
 * submits (Idempotency-Key) and pays; the vendor sees the shipment paid, processes, ships and
 * delivers while the customer's order follows; a vendor cancel gives the stock back, refunds the
 * sub-order once and cancels the parent even when its event arrives again; a signed payment
 * notification pays an order (a bad signature and a replay change nothing).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { TestBus } from '@pasar/testkit';
import { connectStackBus, envelope, findEnvelope, publish, waitForAck, type Envelope } from './support/bus';
import { newShopper, openStore, pollUntil, submit, type E2eStore, type Shopper } from './support/commerce';
import { show, type ApiClient, type Problem } from './support/http';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

const PRICE = '25.00';
const FLAT_RATE = 8;
/** Our own payment keys (not the dev defaults), so the notification below is signed as the gateway would. */
const MERCHANT_ID = 'e2e_merchant';
const SECRET_KEY = `e2e-secret-${randomUUID()}`;

interface SubOrderView {
  id: string;
  status: string;
  total: string;
  courier: string | null;
  trackingId: string | null;
  trackingUrl: string | null;
  shippedAt: string | null;
  deliveredAt: string | null;
  cancelledAt: string | null;
}
interface OrderView {
  id: string;
  status: string;
  total: string;
  pointsEarned: number;
  paidAt: string | null;
  subOrders: SubOrderView[];
  payment: { status: string; amount: string; refundedAmount: string; paidAt: string | null } | null;
}
interface ShipmentView {
  id: string;
  orderId: string;
  status: string;
  total: string;
  courier: string | null;
  trackingId: string | null;
  items: { productId: string; quantity: number }[];
}
interface ShipmentStatusChanged {
  shipmentId: string;
  status: string;
}

let e2e: E2eStack | undefined;
let testBus: TestBus | undefined;
let store: E2eStore | undefined;

beforeAll(async () => {
  e2e = await startE2eStack({ env: { checkout: { PAYMENT_MERCHANT_ID: MERCHANT_ID, PAYMENT_SECRET_KEY: SECRET_KEY } } });
  testBus = await connectStackBus(e2e);
  store = await openStore(e2e, testBus, { basePrice: PRICE, stock: 10 }, FLAT_RATE);
}, 180_000);

afterAll(async () => {
  // the stack's stop deletes the namespace's streams; this connection only closes
  await testBus?.bus.close();
  await e2e?.stop();
}, 60_000);

function env(): { e2e: E2eStack; bus: TestBus; store: E2eStore } {
  if (!e2e || !testBus || !store) throw new Error('the stack did not start');
  return { e2e, bus: testBus, store };
}

async function stockOf(client: ApiClient, productId: string): Promise<number> {
  const product = await client.get<{ stock: number }>(`${API}/catalog/products/${productId}`);
  expect(product.status).toBe(200);
  return product.body.stock;
}

/** Submits `quantity` units of the store's product to the shopper's address; the placed order. */
async function order(shopper: Shopper, quantity: number, key = randomUUID()) {
  const body = { addressId: shopper.addressId, items: [{ productId: env().store.productId, quantity }], shippingMethodId: env().store.shippingMethodId };
  const placed = await submit(shopper.client, body, key);
  if (placed.status !== 201) throw new Error(`submit: ${show(placed)}`);
  return { placed: placed.body, body, key, location: placed.headers.get('location') };
}

/** Pays with the mock payment (PAYMENT_MOCK is on outside production) and answers the order once checkout reads it paid. */
async function payWithMock(shopper: Shopper, orderId: string): Promise<OrderView> {
  const initiate = await shopper.client.post<{ paymentUrl: string }>(`${API}/checkout/payment/initiate/${orderId}`);
  expect(initiate.status).toBe(200);
  expect(initiate.body.paymentUrl).toBe(`/payment/return?status=success&orderId=${orderId}`);
  const paid = await shopper.client.get<OrderView>(`${API}/account/orders/${orderId}`);
  expect(paid.body).toMatchObject({ status: 'paid', payment: { status: 'paid' } });
  return paid.body;
}

const orderOf = (shopper: Shopper, orderId: string, status: string) =>
  pollUntil<OrderView>(shopper.client, `/account/orders/${orderId}`, (o) => o.status === status);
const shipmentOf = (shipmentId: string, status: string) =>
  pollUntil<ShipmentView>(env().store.vendor, `/vendor/shipments/${shipmentId}`, (s) => s.status === status);

async function balanceOf(shopper: Shopper): Promise<number> {
  const balance = await shopper.client.get<{ balance: number }>(`${API}/account/loyalty-balance`);
  expect(balance.status).toBe(200);
  return balance.body.balance;
}

describe('the order flow through the gateway', () => {
  it(
    'submit (idempotent) → pay → the vendor processes, ships and delivers while the customer order follows',
    withLogs(
      () => e2e,
      async () => {
        const { store } = env();
        const shopper = await newShopper(env().e2e, 'flow');
        const stockBefore = await stockOf(shopper.client, store.productId);

        const { placed, body, key, location } = await order(shopper, 2);
        expect(placed).toMatchObject({ status: 'pending_payment', subtotal: '50.00', shippingTotal: '8.00', total: '58.00' });
        expect(location).toBe(`${API}/account/orders/${placed.orderId}`);

        // a retry with the same key and body answers the same order; another body with it is 409
        const retry = await shopper.client.post<{ orderId: string }>(`${API}/checkout/submit`, body, { headers: { 'idempotency-key': key } });
        expect(retry.status).toBe(201);
        expect(retry.body.orderId).toBe(placed.orderId);
        const reused = await shopper.client.post<Problem>(`${API}/checkout/submit`, { ...body, items: [{ productId: store.productId, quantity: 1 }] }, { headers: { 'idempotency-key': key } });
        expect(reused.status).toBe(409);
        expect(reused.body.code).toBe('idempotency_key_reused');
        expect(await stockOf(shopper.client, store.productId)).toBe(stockBefore - 2);

        const paid = await payWithMock(shopper, placed.orderId);
        expect(paid.subOrders).toHaveLength(1);
        const shipmentId = paid.subOrders[0].id;

        // the vendor sees the shipment (same id as the sub-order) as paid
        const shipment = await shipmentOf(shipmentId, 'paid');
        expect(shipment).toMatchObject({ orderId: placed.orderId, total: '58.00', items: [{ productId: store.productId, quantity: 2 }] });
        // the customer cannot act as the vendor
        expect((await shopper.client.post(`${API}/vendor/shipments/${shipmentId}/process`)).status).toBe(403);

        expect((await store.vendor.post(`${API}/vendor/shipments/${shipmentId}/process`)).status).toBe(204);
        const trackingId = `TRK-${randomUUID().slice(0, 8)}`;
        expect((await store.vendor.post(`${API}/vendor/shipments/${shipmentId}/ship`, { courier: 'carrier_a', trackingId })).status).toBe(204);
        expect(await shipmentOf(shipmentId, 'shipped')).toMatchObject({ courier: 'carrier_a', trackingId });

        const shipped = await orderOf(shopper, placed.orderId, 'shipped');
        expect(shipped.subOrders[0]).toMatchObject({ status: 'shipped', courier: 'carrier_a', trackingId, trackingUrl: expect.stringContaining(trackingId), shippedAt: expect.any(String) });

        expect((await store.vendor.post(`${API}/vendor/shipments/${shipmentId}/deliver`)).status).toBe(204);
        const delivered = await orderOf(shopper, placed.orderId, 'delivered');
        expect(delivered.subOrders[0]).toMatchObject({ status: 'delivered', deliveredAt: expect.any(String) });
        expect(delivered.payment).toMatchObject({ status: 'paid', refundedAmount: '0.00' });
        const again = await store.vendor.post<Problem>(`${API}/vendor/shipments/${shipmentId}/deliver`);
        expect(again.status).toBe(409);
        expect(await stockOf(shopper.client, store.productId)).toBe(stockBefore - 2);
      },
    ),
  );

  it(
    'a vendor cancel gives the stock back, refunds the sub-order and cancels the parent once, even when its event arrives again',
    withLogs(
      () => e2e,
      async () => {
        const { store, bus } = env();
        const shopper = await newShopper(env().e2e, 'cancel');
        const stockBefore = await stockOf(shopper.client, store.productId);
        const { placed } = await order(shopper, 3);
        expect(placed.total).toBe('83.00');
        const paid = await payWithMock(shopper, placed.orderId);
        expect(paid.pointsEarned).toBe(75);
        expect(await balanceOf(shopper)).toBe(75);
        const shipmentId = paid.subOrders[0].id;
        await shipmentOf(shipmentId, 'paid');
        expect(await stockOf(shopper.client, store.productId)).toBe(stockBefore - 3);

        expect((await store.vendor.post(`${API}/vendor/shipments/${shipmentId}/cancel`, { reason: 'out of stock in the warehouse' })).status).toBe(204);
        const cancelled = await orderOf(shopper, placed.orderId, 'cancelled');
        expect(cancelled.subOrders[0]).toMatchObject({ status: 'cancelled', total: '83.00', cancelledAt: expect.any(String) });
        expect(cancelled.payment).toMatchObject({ status: 'paid', amount: '83.00', refundedAmount: '83.00' });
        expect(await stockOf(shopper.client, store.productId)).toBe(stockBefore);
        expect(await balanceOf(shopper)).toBe(0);

        // the very event vendor published, delivered twice more, and the same change under a new event id
        const published = await findEnvelope<ShipmentStatusChanged>(bus, 'VENDOR', 'vendor.shipment.status_changed', (d) => d.shipmentId === shipmentId && d.status === 'cancelled');
        if (!published) throw new Error('the cancel event is not on the VENDOR stream');
        const real: Envelope<ShipmentStatusChanged> = published.envelope;
        await publish(bus, real);
        await publish(bus, real);
        const last = await publish(bus, envelope(real.type, real.data));
        await waitForAck(bus, 'VENDOR', 'checkout_shipment-status-mirror', last);

        const after = await shopper.client.get<OrderView>(`${API}/account/orders/${placed.orderId}`);
        expect(after.body).toMatchObject({ status: 'cancelled', payment: { refundedAmount: '83.00' } });
        expect(await stockOf(shopper.client, store.productId)).toBe(stockBefore);
        expect(await balanceOf(shopper)).toBe(0);
        // a cancelled shipment cannot be shipped
        const ship = await store.vendor.post<Problem>(`${API}/vendor/shipments/${shipmentId}/ship`, { courier: 'carrier_a', trackingId: 'TRK-LATE' });
        expect(ship.status).toBeGreaterThanOrEqual(400);
        expect(ship.status).toBeLessThan(500);
      },
    ),
  );

  it(
    'a signed payment notification pays the order; a bad signature and a replay change nothing',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack } = env();
        const shopper = await newShopper(stack, 'notify');
        const { placed } = await order(shopper, 1);
        expect(placed.total).toBe('33.00');

        const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
        const fields = { tranID: `T${Date.now()}`, orderid: placed.shortId, status: '00', domain: MERCHANT_ID, amount: placed.total, currency: 'MYR', paydate: new Date().toISOString(), appcode: 'A1' };
        const skey = md5(fields.paydate + fields.domain + md5(fields.tranID + fields.orderid + fields.status + fields.domain + fields.amount + fields.currency) + fields.appcode + SECRET_KEY);
        const gatewayPost = stack.client(); // no cookie: the payment gateway calls a public path

        const forged = await gatewayPost.post<Problem>(`${API}/payments/notify`, { ...fields, skey: md5(`${skey}forged`) });
        expect(forged.status).toBe(400);
        expect(forged.body.code).toBe('invalid_signature');
        const pending = await shopper.client.get<OrderView>(`${API}/account/orders/${placed.orderId}`);
        expect(pending.body).toMatchObject({ status: 'pending_payment', payment: { status: 'pending' } });

        const genuine = await gatewayPost.post(`${API}/payments/notify`, { ...fields, skey });
        expect({ status: genuine.status, text: genuine.text }).toEqual({ status: 200, text: 'OK' });
        const paid = await shopper.client.get<OrderView>(`${API}/account/orders/${placed.orderId}`);
        expect(paid.body).toMatchObject({ status: 'paid', pointsEarned: 25, payment: { status: 'paid', amount: '33.00', paidAt: expect.any(String) } });
        expect(await balanceOf(shopper)).toBe(25);
        await shipmentOf(paid.body.subOrders[0].id, 'paid');

        const replay = await gatewayPost.post(`${API}/payments/notify`, { ...fields, skey });
        expect(replay.status).toBe(200);
        expect(await balanceOf(shopper)).toBe(25);
        expect((await shopper.client.get<OrderView>(`${API}/account/orders/${placed.orderId}`)).body.paidAt).toBe(paid.body.paidAt);
      },
    ),
  );
});
