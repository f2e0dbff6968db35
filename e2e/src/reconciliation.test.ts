/**
 * Black-box, through the gateway: carrier settlement reconciliation (issue 28). Real orders are
 * paid and booked (mock carrier), two fixture CSVs of carrier_a bills are imported, and
 * GET /admin/shipping/reconciliation flags each case: a 2.0 kg bill for a 1.0 kg parcel
 * (weight_over), a parcel billed in both files (duplicate_bill), a tracking id no shipment has
 * (unknown_parcel), a billed shipment that was cancelled (billed_cancelled), a shipped parcel never
 * billed (unbilled, after RECON_UNBILLED_AFTER, 3 s here). Totals equal the sum of the lines to the
 * cent; CSV; dispute and resolve; a customer gets 403.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestBus } from '@pasar/testkit';
import { connectStackBus, envelope, publish } from './support/bus';
import { newShopper, openStore, pollUntil, submit, type E2eStore, type Shopper } from './support/commerce';
import { show, type ApiClient } from './support/http';
import { newCustomer } from './support/identity';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

interface Line {
  trackingId: string;
  shipmentId: string | null;
  declaredKg: string | null;
  billedKg: string | null;
  expectedCost: string | null;
  billedCost: string | null;
  variance: string | null;
  flags: string[];
  status: string;
}
interface Page {
  lines: Line[];
  totals: { lines: number; expected: string; billed: string; variance: string; byFlag: Record<string, { lines: number; variance: string }> };
  nextCursor: string | null;
}

let e2e: E2eStack | undefined;
let testBus: TestBus | undefined;
let store: E2eStore | undefined;
let shopper: Shopper | undefined;
let admin: ApiClient | undefined;

beforeAll(async () => {
  e2e = await startE2eStack({ env: { admin: { CARRIER_MOCK: 'true', RECON_UNBILLED_AFTER: '3s' } } });
  testBus = await connectStackBus(e2e);
  // 1.000 kg products, 6.00 flat carrier_a shipping: each booking expects 1.000 kg for 6.00
  store = await openStore(e2e, testBus, { basePrice: '20.00', stock: 100, weightKg: '1.000' }, 6);
  const pickup = await store.vendor.post(`${API}/vendor/pickup-addresses`, { label: 'Warehouse', address_line_1: '9 Jalan Gudang', postcode: '40000', state: 'Selangor', is_default: true });
  if (pickup.status !== 201) throw new Error(`pickup address: ${show(pickup)}`);
  shopper = await newShopper(e2e, 'recon');
  admin = e2e.client();
  const signIn = await admin.post(`${API}/auth/sign-in`, e2e.stack.admin);
  if (signIn.status !== 200) throw new Error(`admin sign-in: ${show(signIn)}`);
}, 180_000);

afterAll(async () => {
  await testBus?.bus.close();
  await e2e?.stop();
}, 60_000);

function env() {
  if (!e2e || !testBus || !store || !shopper || !admin) throw new Error('the stack did not start');
  return { e2e, testBus, store, shopper, admin };
}

interface Booked {
  shipmentId: string;
  orderId: string;
  trackingId: string;
}

/** One paid order of one product, its shipment booked with the (mock) carrier. */
async function paidAndBooked(): Promise<Booked> {
  const { store, shopper, admin } = env();
  const placed = await submit(shopper.client, { addressId: shopper.addressId, items: [{ productId: store.productId, quantity: 1 }], shippingMethodId: store.shippingMethodId }, randomUUID());
  if (placed.status !== 201) throw new Error(`submit: ${show(placed)}`);
  expect((await shopper.client.post(`${API}/checkout/payment/initiate/${placed.body.orderId}`)).status).toBe(200);
  const order = await pollUntil<{ subOrders: { id: string }[] }>(shopper.client, `/account/orders/${placed.body.orderId}`, (o) => o.subOrders.length === 1);
  const shipmentId = order.subOrders[0].id;
  await pollUntil<{ status: string }>(store.vendor, `/vendor/shipments/${shipmentId}`, (s) => s.status === 'paid', 30_000);
  const booked = await admin.post<{ status: string; trackingNumber: string }>(`${API}/admin/shipments/${shipmentId}/book`);
  if (booked.status !== 200 || booked.body.status !== 'success') throw new Error(`book: ${show(booked)}`);
  // the vendor applies admin.shipment.booked (awaiting_pickup)
  await pollUntil<{ status: string }>(store.vendor, `/vendor/shipments/${shipmentId}`, (s) => s.status === 'awaiting_pickup', 30_000);
  return { shipmentId, orderId: placed.body.orderId, trackingId: booked.body.trackingNumber };
}

function fixture(name: string, ids: Record<string, string>): string {
  const text = readFileSync(join(__dirname, '..', 'fixtures', 'reconciliation', name), 'utf8');
  return text.replace(/\{\{([A-Z]+)\}\}/g, (_match, key: string) => ids[key] ?? `{{${key}}}`);
}

async function reconciliation(query = ''): Promise<Page> {
  const res = await env().admin.get<Page>(`${API}/admin/shipping/reconciliation${query}`);
  if (res.status !== 200) throw new Error(`reconciliation: ${show(res)}`);
  return res.body;
}

const cents = (money: string | null) => (money === null ? 0 : Math.round(Number(money) * 100));
const money = (c: number) => `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;

describe('carrier settlement reconciliation through the gateway', () => {
  it(
    'fixture CSVs imported: each case flagged, totals the sum of the lines, CSV, dispute and resolve; non-admin 403',
    withLogs(
      () => e2e,
      async () => {
        const { admin, store, testBus } = env();
        const heavy = await paidAndBooked();
        const twice = await paidAndBooked();
        const cancelled = await paidAndBooked();
        const fine = await paidAndBooked();
        const forgotten = await paidAndBooked();
        const stranger = `ZZ${randomUUID().slice(0, 8).toUpperCase()}`;

        // the vendor ships `forgotten` (never billed); `cancelled` is cancelled after its label was
        // bought (the vendor's status event, as vendor publishes it; its routes only cancel unbooked ones)
        expect((await store.vendor.post(`${API}/vendor/shipments/${forgotten.shipmentId}/ship`, { courier: 'carrier_a', trackingId: forgotten.trackingId })).status).toBe(204);
        const at = new Date().toISOString();
        await publish(
          testBus,
          envelope('vendor.shipment.status_changed', {
            shipmentId: cancelled.shipmentId,
            orderId: cancelled.orderId,
            storeId: store.storeId,
            status: 'cancelled',
            previousStatus: 'awaiting_pickup',
            courier: 'carrier_a',
            trackingId: cancelled.trackingId,
            trackingUrl: null,
            shippedAt: null,
            deliveredAt: null,
            cancelledAt: at,
            reason: 'buyer cancelled',
            changedAt: at,
          }),
        );

        const ids = { HEAVY: heavy.trackingId, TWICE: twice.trackingId, CANCELLED: cancelled.trackingId, STRANGER: stranger, FINE: fine.trackingId };
        const first = fixture('carrier_a-november-1.csv', ids);
        const imported = await admin.post<{ inserted: number; unmatchedTrackingIds: string[] }>(`${API}/admin/shipping/settlements/import`, { carrier: 'carrier_a', csvText: first });
        expect(imported.status).toBe(200);
        expect(imported.body).toMatchObject({ inserted: 5, unmatchedTrackingIds: [stranger] });
        const second = await admin.post(`${API}/admin/shipping/settlements/import`, { carrier: 'carrier_a', csvText: fixture('carrier_a-november-2.csv', ids) });
        expect(second.status).toBe(200);

        // the cancelled status and the unbilled age (3 s) reach the reconciliation
        const lines = await pollUntil<Page>(admin, '/admin/shipping/reconciliation?limit=1000', (p) => {
          const flagsOf = (id: string) => p.lines.find((l) => l.trackingId === id)?.flags ?? [];
          return flagsOf(cancelled.trackingId).includes('billed_cancelled') && flagsOf(forgotten.trackingId).includes('unbilled');
        }, 60_000);
        const line = (id: string) => lines.lines.find((l) => l.trackingId === id);
        expect(line(heavy.trackingId)).toMatchObject({ shipmentId: heavy.shipmentId, declaredKg: '1.000', billedKg: '2.000', expectedCost: '6.00', billedCost: '6.00', variance: '0.00', flags: ['weight_over'], status: 'open' });
        expect(line(twice.trackingId)).toMatchObject({ billedCost: '12.00', variance: '6.00', flags: ['duplicate_bill'] });
        expect(line(stranger)).toMatchObject({ shipmentId: null, billedCost: '7.25', flags: ['unknown_parcel'] });
        expect(line(cancelled.trackingId)).toMatchObject({ flags: ['billed_cancelled'] });
        expect(line(forgotten.trackingId)).toMatchObject({ billedCost: null, expectedCost: '6.00', flags: ['unbilled'] });
        expect(line(fine.trackingId)).toMatchObject({ variance: '0.10', flags: [], status: 'ok' });

        // totals over every line equal the sum of the lines, to the cent
        const sum = (pick: (l: Line) => string | null) => money(lines.lines.reduce((c, l) => c + cents(pick(l)), 0));
        expect(lines.totals).toMatchObject({ lines: lines.lines.length, expected: sum((l) => l.expectedCost), billed: sum((l) => l.billedCost), variance: sum((l) => l.variance) });
        expect(lines.totals.byFlag.weight_over.lines).toBe(1);

        // importing the first file again changes nothing
        expect((await admin.post(`${API}/admin/shipping/settlements/import`, { carrier: 'carrier_a', csvText: first })).body).toMatchObject({ inserted: 0, duplicate: 5 });
        expect(await reconciliation('?limit=1000')).toEqual(lines);

        const csv = await admin.get<string>(`${API}/admin/shipping/reconciliation?flag=weight_over`, { headers: { accept: 'text/csv' } });
        expect(csv.status).toBe(200);
        expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
        expect(String(csv.text).trim().split('\n')).toEqual([expect.stringMatching(/^trackingId,/), expect.stringContaining(`${heavy.trackingId},${heavy.shipmentId}`)]);

        const disputed = await admin.post<{ status: string }>(`${API}/admin/shipping/reconciliation/${heavy.trackingId}/dispute`, { note: 'billed 2 kg for 1 kg' });
        expect(disputed.status).toBe(200);
        expect(disputed.body.status).toBe('disputed');
        const resolved = await admin.post<{ status: string; history: { action: string; note: string }[] }>(`${API}/admin/shipping/reconciliation/${heavy.trackingId}/resolve`, { note: 'credited', outcome: 'credited' });
        expect(resolved.body).toMatchObject({ status: 'resolved', history: [{ action: 'dispute' }, { action: 'resolve', note: 'credited' }] });
        expect((await reconciliation('?flag=weight_over')).lines[0].status).toBe('resolved');

        const customer = env().e2e.client();
        expect((await customer.post(`${API}/auth/sign-up`, newCustomer('recon-customer'))).status).toBe(201);
        expect((await customer.get(`${API}/admin/shipping/reconciliation`)).status).toBe(403);
        expect((await customer.post(`${API}/admin/shipping/reconciliation/${heavy.trackingId}/dispute`, { note: 'x' })).status).toBe(403);
        expect((await env().e2e.client().get(`${API}/admin/shipping/reconciliation`)).status).toBe(401);
      },
    ),
    240_000,
  );
});
