/**
 * Black-box, through the gateway: the administrator's side of issue 11. A signed-in user applies to
 * sell, the admin approves, the credentials e-mail arrives and the new vendor signs in (also when
 * the first e-mail bounced and resend-credentials followed the fix). Carrier booking against the
 * fake carrier: two 5xx then booked (the vendor sees tracking and awaiting_pickup), six 5xx →
 * failed across a restart of the admin service, a 4xx → failed; signed label URLs, tampered and
 * expired; settlement import with exact counts. Every /admin route: 401 anonymous, 403 customer and vendor.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { startFakeCarrier, waitFor, type FakeCarrier, type TestBus } from '@pasar/testkit';
import { connectStackBus } from './support/bus';
import { newShopper, openStore, pollUntil, submit, type E2eStore } from './support/commerce';
import { show, type ApiClient, type Problem } from './support/http';
import { newCustomer } from './support/identity';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

const LABEL_SIGNING_KEY = `e2e-label-key-${randomUUID()}`;
const ADMIN_ENV = (carrierUrl: string) => ({
  // the launcher turns the mock carrier on outside production; these tests talk to the fake carrier
  CARRIER_MOCK: 'false',
  CARRIER_A_URL: carrierUrl,
  CARRIER_B_URL: carrierUrl,
  CARRIER_TIMEOUT_MS: '2000',
  CARRIER_RETRY_WAITS: '1s,1s,1s,1s,1s',
  CARRIER_RETRY_POLL_MS: '200',
  LABEL_SIGNING_KEY,
});

let e2e: E2eStack | undefined;
let carrier: FakeCarrier | undefined;
let testBus: TestBus | undefined;
let store: E2eStore | undefined;
let admin: ApiClient | undefined;

beforeAll(async () => {
  carrier = await startFakeCarrier();
  e2e = await startE2eStack({ env: { admin: ADMIN_ENV(carrier.url) } });
  testBus = await connectStackBus(e2e);
  store = await openStore(e2e, testBus, { basePrice: '30.00', stock: 100 }, 6);
  const pickup = await store.vendor.post(`${API}/vendor/pickup-addresses`, { label: 'Warehouse', address_line_1: '9 Jalan Gudang', postcode: '40000', state: 'Selangor', is_default: true });
  if (pickup.status !== 201) throw new Error(`pickup address: ${show(pickup)}`);
  admin = e2e.client();
  const signIn = await admin.post(`${API}/auth/sign-in`, e2e.stack.admin);
  if (signIn.status !== 200) throw new Error(`admin sign-in: ${show(signIn)}`);
}, 180_000);

afterAll(async () => {
  await testBus?.bus.close();
  await e2e?.stop();
  await carrier?.close();
}, 60_000);

function env(): { e2e: E2eStack; carrier: FakeCarrier; store: E2eStore; admin: ApiClient } {
  if (!e2e || !carrier || !store || !admin) throw new Error('the stack did not start');
  return { e2e, carrier, store, admin };
}

// ---------------------------------------------------------------- vendor onboarding

interface Application {
  id: string;
  email: string;
  status: string;
}

function applicationBody(email: string): Record<string, unknown> {
  return {
    email,
    full_name: 'Nurul Huda',
    phone: '+60198765432',
    store_name: `Kraf Tangan ${randomUUID().slice(0, 6)}`,
    description: 'Songket and handwoven bags',
    bank_name: 'CIMB',
    bank_account_number: '8000123456',
    bank_account_name: 'Kraf Tangan Enterprise',
    tin: 'IG12345678901',
    msic_code: '47711',
    intermediary_consent_accepted: true,
    intermediary_consent_tos_version: '2026-01',
  };
}

/** A signed-up customer applies with a fresh e-mail for the vendor account. */
async function applyAsCustomer(): Promise<Application> {
  const applicant = env().e2e.client();
  expect((await applicant.post(`${API}/auth/sign-up`, newCustomer('applicant'))).status).toBe(201);
  const email = `vendor-${randomUUID().slice(0, 8)}@e2e.pasar.test`;
  const res = await applicant.post<Application>(`${API}/vendor-applications`, applicationBody(email));
  if (res.status !== 201) throw new Error(`apply: ${show(res)}`);
  return res.body;
}

/** The password of the newest credentials e-mail to `email` after `seen` earlier ones (text part; soft breaks removed). */
async function credentialsPassword(email: string, seen = 0): Promise<string> {
  const { smtp } = env().e2e;
  await waitFor(() => smtp.messages.filter((m) => m.to.includes(email)).length > seen, 30_000);
  const mails = smtp.messages.filter((m) => m.to.includes(email));
  const raw = mails[mails.length - 1].raw.replace(/=\r?\n/g, '');
  const match = /Temporary password: ([A-Za-z0-9]{16})/.exec(raw);
  if (!match) throw new Error(`no password in the credentials e-mail:\n${raw.slice(0, 2000)}`);
  return match[1];
}

async function signsInAsVendor(email: string, password: string): Promise<void> {
  const vendor = env().e2e.client();
  const signIn = await vendor.post<{ user: { role: string } }>(`${API}/auth/sign-in`, { email, password });
  expect(signIn.status).toBe(200);
  expect(signIn.body.user.role).toBe('vendor');
  // the store exists: vendor routes that need one answer
  expect((await vendor.get(`${API}/vendor/pickup-addresses`)).status).toBe(200);
}

describe('vendor onboarding through the gateway', () => {
  it(
    'apply → approve → credentials e-mail → the new vendor signs in and has a store',
    withLogs(
      () => e2e,
      async () => {
        const anonymous = await env().e2e.client().post<Problem>(`${API}/vendor-applications`, applicationBody('x@e2e.pasar.test'));
        expect(anonymous.status).toBe(401);

        const application = await applyAsCustomer();
        expect(application.status).toBe('pending');
        const pending = await env().admin.get<Application[]>(`${API}/admin/vendor-applications?status=pending`);
        expect(pending.body.map((a) => a.id)).toContain(application.id);

        const approved = await env().admin.post<Application>(`${API}/admin/vendor-applications/${application.id}/approve`);
        expect(approved.status).toBe(200);
        expect(approved.body.status).toBe('approved');
        await signsInAsVendor(application.email, await credentialsPassword(application.email));
      },
    ),
    120_000,
  );

  it(
    'an e-mail the SMTP server refuses: 500 and approved; after the fix resend-credentials delivers and the new password signs in',
    withLogs(
      () => e2e,
      async () => {
        const { smtp } = env().e2e;
        const application = await applyAsCustomer();
        smtp.refuseRecipient(application.email);
        const approve = await env().admin.post<Problem>(`${API}/admin/vendor-applications/${application.id}/approve`);
        expect(approve.status).toBe(500);
        expect(approve.contentType).toMatch(/^application\/problem\+json/);
        expect(approve.body.code).toBe('credentials_email_failed');
        expect((await env().admin.get<Application>(`${API}/admin/vendor-applications/${application.id}`)).body.status).toBe('approved');
        expect(smtp.messages.filter((m) => m.to.includes(application.email))).toHaveLength(0);

        smtp.acceptRecipient(application.email);
        const resend = await env().admin.post(`${API}/admin/vendor-applications/${application.id}/resend-credentials`);
        expect(resend.status).toBe(204);
        await signsInAsVendor(application.email, await credentialsPassword(application.email));
      },
    ),
    120_000,
  );
});

// ---------------------------------------------------------------- administrators only

describe('every /admin route of the admin service', () => {
  it(
    'answers 401 without a session and 403 to customers and vendors',
    withLogs(
      () => e2e,
      async () => {
        const id = randomUUID();
        const routes: [string, string][] = [
          ['GET', '/admin/vendor-applications'],
          ['GET', `/admin/vendor-applications/${id}`],
          ['POST', `/admin/vendor-applications/${id}/reject`],
          ['POST', `/admin/vendor-applications/${id}/approve`],
          ['POST', `/admin/vendor-applications/${id}/resend-credentials`],
          ['POST', `/admin/shipments/${id}/book`],
          ['GET', `/admin/shipments/${id}/booking`],
          ['GET', `/admin/shipments/${id}/label-url`],
          ['GET', '/admin/shipping/settlements'],
          ['POST', '/admin/shipping/settlements/import'],
        ];
        const customer = env().e2e.client();
        expect((await customer.post(`${API}/auth/sign-up`, newCustomer('nosy'))).status).toBe(201);
        const anonymous = env().e2e.client();
        for (const [method, path] of routes) {
          const body = method === 'POST' ? {} : undefined;
          expect([method, path, (await anonymous.request(method, `${API}${path}`, { body })).status]).toEqual([method, path, 401]);
          expect([method, path, (await customer.request(method, `${API}${path}`, { body })).status]).toEqual([method, path, 403]);
          expect([method, path, (await env().store.vendor.request(method, `${API}${path}`, { body })).status]).toEqual([method, path, 403]);
        }
      },
    ),
    60_000,
  );
});

// ---------------------------------------------------------------- carrier booking and labels

interface BookingResult {
  success: boolean;
  status: string;
  trackingNumber: string | null;
  labelUrl: string | null;
  error: string | null;
}
interface BookingRecord {
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  trackingNumber: string | null;
}

/** A paid shipment of the store (an order submitted and paid with the mock payment); its id. */
async function paidShipment(): Promise<string> {
  const { store } = env();
  const shopper = await newShopper(env().e2e, 'booking');
  const placed = await submit(shopper.client, { addressId: shopper.addressId, items: [{ productId: store.productId, quantity: 1 }], shippingMethodId: store.shippingMethodId }, randomUUID());
  if (placed.status !== 201) throw new Error(`submit: ${show(placed)}`);
  expect((await shopper.client.post(`${API}/checkout/payment/initiate/${placed.body.orderId}`)).status).toBe(200);
  const order = await pollUntil<{ subOrders: { id: string }[] }>(shopper.client, `/account/orders/${placed.body.orderId}`, (o) => o.subOrders.length === 1);
  const shipmentId = order.subOrders[0].id;
  await pollUntil<{ status: string }>(store.vendor, `/vendor/shipments/${shipmentId}`, (s) => s.status === 'paid', 30_000);
  return shipmentId;
}

const bookingOf = (shipmentId: string, done: (b: BookingRecord) => boolean, timeoutMs = 30_000) =>
  pollUntil<BookingRecord>(env().admin, `/admin/shipments/${shipmentId}/booking`, done, timeoutMs);

async function book(shipmentId: string): Promise<BookingResult> {
  const res = await env().admin.post<BookingResult>(`${API}/admin/shipments/${shipmentId}/book`);
  if (res.status !== 200) throw new Error(`book: ${show(res)}`);
  return res.body;
}

const bookedTrackingIds: string[] = [];

describe('carrier booking through the gateway', () => {
  it(
    'two 5xx, then booked by the retry worker; the vendor sees tracking and awaiting_pickup; the label URL serves the PDF',
    withLogs(
      () => e2e,
      async () => {
        const shipmentId = await paidShipment();
        env().carrier.failNext(2);
        const first = await book(shipmentId);
        expect(first).toMatchObject({ success: false, status: 'pending_retry', trackingNumber: null });
        const booked = await bookingOf(shipmentId, (b) => b.status === 'success');
        expect(booked.attempts).toBe(3);
        bookedTrackingIds.push(booked.trackingNumber as string);

        const shipment = await pollUntil<{ status: string; trackingId: string | null; courier: string | null }>(
          env().store.vendor,
          `/vendor/shipments/${shipmentId}`,
          (s) => s.status === 'awaiting_pickup',
        );
        expect(shipment).toMatchObject({ trackingId: booked.trackingNumber, courier: 'carrier_a' });

        const again = await book(shipmentId);
        expect(again).toMatchObject({ success: true, status: 'success', trackingNumber: booked.trackingNumber, error: null });

        const label = await env().admin.get<{ url: string; expiresAt: string }>(`${API}/admin/shipments/${shipmentId}/label-url`);
        expect(label.status).toBe(200);
        const pdf = await fetch(new URL(label.body.url, env().e2e.stack.gatewayUrl));
        expect(pdf.status).toBe(200);
        expect(pdf.headers.get('content-type')).toBe('application/pdf');
        expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

        // tampered: another expiry, another signature → 403
        const url = new URL(label.body.url, env().e2e.stack.gatewayUrl);
        const expires = Number(url.searchParams.get('expires'));
        const tampered = new URL(url);
        tampered.searchParams.set('expires', String(expires + 7200));
        expect((await fetch(tampered)).status).toBe(403);
        const forged = new URL(url);
        forged.searchParams.set('signature', 'f'.repeat(64));
        expect((await fetch(forged)).status).toBe(403);
        // expired: correctly signed, but an hour ago
        const past = Math.floor(Date.now() / 1000) - 60;
        const expired = new URL(url);
        expired.searchParams.set('expires', String(past));
        expired.searchParams.set('signature', createHmac('sha256', LABEL_SIGNING_KEY).update(`label:${shipmentId}:${past}`).digest('hex'));
        const expiredAnswer = await fetch(expired);
        expect(expiredAnswer.status).toBe(403);
        expect(((await expiredAnswer.json()) as Problem).code).toBe('label_url_expired');
      },
    ),
    120_000,
  );

  it(
    'six 5xx across a restart of the admin service: one attempt and five retries, then failed',
    withLogs(
      () => e2e,
      async () => {
        const shipmentId = await paidShipment();
        env().carrier.failNext(6);
        expect(await book(shipmentId)).toMatchObject({ success: false, status: 'pending_retry' });
        const { admin: adminService } = env().e2e.stack.services;
        await adminService.stop();
        await adminService.start();
        const failed = await bookingOf(shipmentId, (b) => b.status === 'failed', 60_000);
        expect(failed).toMatchObject({ attempts: 6, nextAttemptAt: null });
        expect(failed.lastError).toMatch(/503/);
        expect(env().carrier.requests.filter((r) => r.idempotencyKey === shipmentId)).toHaveLength(6);
      },
    ),
    120_000,
  );

  it(
    'a 4xx: failed at once',
    withLogs(
      () => e2e,
      async () => {
        const shipmentId = await paidShipment();
        env().carrier.rejectNext(1);
        const result = await book(shipmentId);
        expect(result).toMatchObject({ success: false, status: 'failed', trackingNumber: null, labelUrl: null });
        expect(result.error).toMatch(/422/);
        expect((await env().admin.get<BookingRecord>(`${API}/admin/shipments/${shipmentId}/booking`)).body).toMatchObject({ status: 'failed', attempts: 1 });
      },
    ),
    120_000,
  );
});

// ---------------------------------------------------------------- settlements

interface ImportResult {
  total: number;
  inserted: number;
  duplicate: number;
  unmatched: number;
  parseErrors: string[];
  unmatchedTrackingIds: string[];
}

describe('settlement import through the gateway', () => {
  it(
    'exact counts on a file with duplicates, unmatched ids and bad rows; the same file twice; a wrong header 400',
    withLogs(
      () => e2e,
      async () => {
        expect(bookedTrackingIds).toHaveLength(1);
        const [known] = bookedTrackingIds;
        const stranger = `ZZ${randomUUID().slice(0, 8).toUpperCase()}`;
        const csvText = [
          'Waybill No,Billing Date,Weight (kg),Amount (MYR)',
          `${known},2026-11-20,1.10,9.80`,
          `${known},2026-11-20,1.10,9.80`,
          `${stranger},2026-11-20,0.40,5.00`,
          `${known},20/11/2026,1.10,9.80`,
          `${stranger},2026-11-21,0.40,five`,
        ].join('\n');
        const first = await env().admin.post<ImportResult>(`${API}/admin/shipping/settlements/import`, { carrier: 'carrier_a', csvText });
        expect(first.status).toBe(200);
        expect(first.body).toEqual({
          total: 5,
          inserted: 2,
          duplicate: 1,
          unmatched: 1,
          parseErrors: ['line 5: Billing Date "20/11/2026" is not a date (YYYY-MM-DD)', 'line 6: Amount (MYR) "five" is not an amount'],
          unmatchedTrackingIds: [stranger],
        });
        const second = await env().admin.post<ImportResult>(`${API}/admin/shipping/settlements/import`, { carrier: 'carrier_a', csvText });
        expect(second.body).toMatchObject({ total: 5, inserted: 0, duplicate: 3, unmatched: 1 });

        const wrong = await env().admin.post<Problem>(`${API}/admin/shipping/settlements/import`, {
          carrier: 'carrier_b',
          csvText: csvText.replace(/^.*\n/, 'Tracking Number,Invoice Date,Weight,Total Charge\n'),
        });
        expect(wrong.status).toBe(400);
        expect(wrong.body.code).toBe('wrong_header');

        const list = await env().admin.get<{ tracking_id: string; actual_cost: string; adjustment_order_id: string | null }[]>(`${API}/admin/shipping/settlements?limit=2`);
        expect(list.status).toBe(200);
        expect(list.body.map((r) => r.tracking_id)).toEqual([stranger, known]);
        expect(list.body[1].adjustment_order_id).not.toBeNull();
      },
    ),
    60_000,
  );
});
