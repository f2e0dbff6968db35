import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Subscription } from '@nats-io/transport-node';
import { RpcRefusal, serveRpc } from '@pasar/bus';
import {
  adminShipmentBooked,
  bookingResult,
  carrierBookingRecord,
  labelUrlResponse,
  vendorBookingContext,
  vendorShipmentStatusChanged,
  type RpcResponse,
} from '@pasar/contracts';
import { eventEnvelope, publishEvent, shipmentChange, signedHeaders, silentLog, startFakeCarrier, waitFor, type FakeCarrier } from '@pasar/testkit';
import request from 'supertest';
import { asAdmin, asCustomer, asVendor, depsOf, outboxEvents, startTestAdmin, type TestAdmin } from '../../test/admin';
import { startAdmin } from '../app';
import { signedLabelUrl } from '../labels/rules';
import { claimDueBookings, retryDueBookings } from './retry-worker';

type BookingContext = RpcResponse<typeof vendorBookingContext>;

const BASE = '/api/v1/admin/shipments';
let t: TestAdmin;
let carrier: FakeCarrier;
let vendorRpc: Subscription;
/** What vendor answers to rpc.vendor.booking_context, per shipment. */
const contexts = new Map<string, BookingContext>();

beforeAll(async () => {
  carrier = await startFakeCarrier();
  t = await startTestAdmin({
    CARRIER_A_URL: carrier.url,
    CARRIER_B_URL: carrier.url,
    CARRIER_TIMEOUT_MS: '400',
    CARRIER_RETRY_WAITS: '300ms,300ms,300ms,300ms,300ms',
    CARRIER_RETRY_POLL_MS: '100',
  });
  vendorRpc = serveRpc(t.peer.bus, vendorBookingContext, async ({ shipmentId }) => {
    const context = contexts.get(shipmentId);
    if (!context) throw new RpcRefusal('not_found', 'no such shipment');
    return context;
  });
});
afterAll(async () => {
  vendorRpc?.unsubscribe();
  await t?.stop();
  await carrier?.close();
});

const http = () => request(t.admin.url);

function givenShipment(overrides: Partial<BookingContext> = {}, status: BookingContext['shipment']['status'] = 'paid'): string {
  const id = randomUUID();
  contexts.set(id, {
    shipment: { id, orderId: randomUUID(), storeId: randomUUID(), status, shippingMethodId: randomUUID() },
    provider: 'carrier_a',
    recipient: { fullName: 'Ali Bakar', phone: '+60111111111', addressLine1: '1 Jalan Ampang', addressLine2: null, city: 'Kuala Lumpur', postcode: '50450', state: 'WP Kuala Lumpur' },
    items: [{ productName: 'Batik scarf', quantity: 2, weightKg: '0.300' }],
    pickupAddress: { id: randomUUID(), label: 'Warehouse', addressLine1: '9 Jalan Gudang', postcode: '40000', state: 'Selangor' },
    ...overrides,
  });
  return id;
}

async function book(shipmentId: string) {
  const res = await http().post(`${BASE}/${shipmentId}/book`).set(asAdmin()).expect(200);
  return bookingResult.parse(res.body);
}

async function bookingOf(shipmentId: string) {
  return carrierBookingRecord.parse((await http().get(`${BASE}/${shipmentId}/booking`).set(asAdmin()).expect(200)).body);
}

/** vendor publishes vendor.shipment.status_changed: the shipment is now cancelled. */
async function shipmentCancelled(shipment: BookingContext['shipment'], reason: string): Promise<void> {
  const changedAt = new Date().toISOString();
  const data = shipmentChange({ shipmentId: shipment.id, orderId: shipment.orderId, storeId: shipment.storeId, status: 'cancelled', previousStatus: shipment.status, cancelledAt: changedAt, reason, changedAt });
  const event = eventEnvelope(vendorShipmentStatusChanged, data, 'vendor', changedAt);
  await publishEvent(t.peer.bus, event);
}

const requestsFor = (shipmentId: string) => carrier.requests.filter((r) => r.idempotencyKey === shipmentId);

describe('POST /admin/shipments/{id}/book', () => {
  test('carrier_a: books with the shipment, items and pickup address; label with the booking; admin.shipment.booked', async () => {
    const id = givenShipment();
    const result = await book(id);
    expect(result).toMatchObject({ success: true, status: 'success', error: null });
    expect(result.trackingNumber).toMatch(/^CA/);
    expect(result.labelUrl).toMatch(new RegExp(`^/api/v1/shipment-labels/${id}\\?expires=\\d+&signature=[0-9a-f]{64}$`));

    const [sent] = requestsFor(id);
    expect(sent).toMatchObject({
      carrier: 'carrier_a',
      body: {
        reference: id,
        pickup: { label: 'Warehouse', addressLine1: '9 Jalan Gudang', postcode: '40000', state: 'Selangor' },
        recipient: { fullName: 'Ali Bakar', city: 'Kuala Lumpur' },
        parcels: [{ description: 'Batik scarf', quantity: 2, weightKg: '0.300' }],
      },
    });
    const events = (await outboxEvents(t, adminShipmentBooked)).filter((e) => e.shipmentId === id);
    expect(events).toEqual([expect.objectContaining({ carrier: 'carrier_a', trackingNumber: result.trackingNumber })]);
    const indexed = await t.admin.prisma.trackingIndex.findUniqueOrThrow({ where: { trackingId: result.trackingNumber as string } });
    expect(indexed).toMatchObject({ shipmentId: id, orderId: contexts.get(id)?.shipment.orderId, courier: 'carrier_a' });
    const stored = await t.admin.prisma.carrierBooking.findUniqueOrThrow({ where: { shipmentId: id } });
    expect(stored.labelKey).toBe(`labels/${id}.pdf`);

    expect(await bookingOf(id)).toMatchObject({ shipmentId: id, carrier: 'carrier_a', status: 'success', attempts: 1, nextAttemptAt: null, lastError: null, trackingNumber: result.trackingNumber });

    // booking again answers the booking; the carrier is not called twice
    expect(await book(id)).toMatchObject({ success: true, trackingNumber: result.trackingNumber });
    expect(requestsFor(id)).toHaveLength(1);
  });

  test('carrier_b: booked without a label; GET label-url fetches it once, stores it, and the signed URL serves the PDF', async () => {
    const id = givenShipment({ provider: 'carrier_b' });
    const result = await book(id);
    expect(result).toMatchObject({ success: true, status: 'success' });
    expect(result.trackingNumber).toMatch(/^CB/);
    expect((await t.admin.prisma.carrierBooking.findUniqueOrThrow({ where: { shipmentId: id } })).labelKey).toBeNull();

    const before = carrier.labelRequests;
    const first = labelUrlResponse.parse((await http().get(`${BASE}/${id}/label-url`).set(asAdmin()).expect(200)).body);
    expect(carrier.labelRequests).toBe(before + 1);
    expect(new Date(first.expiresAt).getTime() - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    await http().get(`${BASE}/${id}/label-url`).set(asAdmin()).expect(200);
    expect(carrier.labelRequests).toBe(before + 1);

    const pdf = await http().get(first.url).set(signedHeaders(null)).buffer(true).expect(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect((pdf.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
  });

  test("a signed URL served by an instance whose storage lacks the label fetches it from the carrier again", async () => {
    const id = givenShipment();
    const { labelUrl } = await book(id);
    await rm(join(t.config.STORAGE_DIR, 'labels', `${id}.pdf`));
    const before = carrier.labelRequests;
    const pdf = await http().get(labelUrl as string).set(signedHeaders(null)).buffer(true).expect(200);
    expect((pdf.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    expect(carrier.labelRequests).toBe(before + 1);
    await http().get(labelUrl as string).set(signedHeaders(null)).expect(200);
    expect(carrier.labelRequests).toBe(before + 1);
  });

  test('a carrier that does not hand out the label: 502 label_unavailable, and it is fetched on the next call', async () => {
    const id = givenShipment({ provider: 'carrier_b' });
    await book(id);
    carrier.labelsDown = true;
    try {
      const res = await http().get(`${BASE}/${id}/label-url`).set(asAdmin()).expect(502);
      expect(res.body.code).toBe('label_unavailable');
    } finally {
      carrier.labelsDown = false;
    }
    await http().get(`${BASE}/${id}/label-url`).set(asAdmin()).expect(200);
  });

  test('a 5xx twice, then success: pending_retry, retried by the worker on the schedule, booked once', async () => {
    const id = givenShipment();
    carrier.failNext(2);
    const first = await book(id);
    expect(first).toMatchObject({ success: false, status: 'pending_retry', trackingNumber: null, labelUrl: null });
    expect(first.error).toMatch(/carrier_a answered 503/);
    const pending = await bookingOf(id);
    expect(pending).toMatchObject({ status: 'pending_retry', attempts: 1 });
    expect(pending.nextAttemptAt).not.toBeNull();

    const booked = await waitFor(async () => {
      const record = await bookingOf(id);
      return record.status === 'success' ? record : null;
    });
    expect(booked).toMatchObject({ attempts: 3, lastError: null, nextAttemptAt: null });
    expect(requestsFor(id).map((r) => r.answered)).toEqual([503, 503, 201]);
    expect((await outboxEvents(t, adminShipmentBooked)).filter((e) => e.shipmentId === id)).toHaveLength(1);
    expect(await book(id)).toMatchObject({ success: true, trackingNumber: booked.trackingNumber });
  });

  test('failing 6 times: one attempt and five retries, then failed', async () => {
    const id = givenShipment();
    carrier.failNext(6, 502);
    expect(await book(id)).toMatchObject({ success: false, status: 'pending_retry' });
    const failed = await waitFor(async () => {
      const record = await bookingOf(id);
      return record.status === 'failed' ? record : null;
    });
    expect(failed).toMatchObject({ attempts: 6, nextAttemptAt: null });
    expect(failed.lastError).toMatch(/502/);
    expect(requestsFor(id)).toHaveLength(6);
    expect(await book(id)).toMatchObject({ success: true, status: 'success' }); // a failed booking may be booked anew
  });

  test('a shipment cancelled while its booking is retried: the retries stop and the record says why', async () => {
    const id = givenShipment();
    carrier.failNext(100);
    try {
      expect(await book(id)).toMatchObject({ success: false, status: 'pending_retry' });
      await shipmentCancelled(contexts.get(id)!.shipment, 'customer asked');
      const stopped = await waitFor(async () => {
        const record = await bookingOf(id);
        return record.status === 'cancelled' ? record : null;
      });
      expect(stopped.nextAttemptAt).toBeNull();
      expect(stopped.lastError).toMatch(/retries stopped: the shipment was cancelled at .* \(customer asked\)/);
      await new Promise((resolve) => setTimeout(resolve, 400)); // an attempt in flight at the cancellation ends
      const made = requestsFor(id).length;
      await new Promise((resolve) => setTimeout(resolve, 1500)); // five retry waits of 300 ms
      expect(requestsFor(id)).toHaveLength(made);
      expect(made).toBeLessThan(6);
      expect(await bookingOf(id)).toMatchObject({ status: 'cancelled', lastError: stopped.lastError });
      expect(await book(id)).toMatchObject({ success: false, status: 'cancelled', error: stopped.lastError });
    } finally {
      carrier.failNext(0);
    }
  });

  test('a 4xx: failed at once, no retry', async () => {
    const id = givenShipment();
    carrier.rejectNext(1);
    const result = await book(id);
    expect(result).toMatchObject({ success: false, status: 'failed', trackingNumber: null, labelUrl: null });
    expect(result.error).toMatch(/carrier_a answered 422/);
    expect(await bookingOf(id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
    expect(await t.admin.prisma.carrierBooking.count({ where: { shipmentId: id, status: 'pending_retry' } })).toBe(0);
    expect(requestsFor(id)).toHaveLength(1);

    // the console's failed work lists it, administrators only
    const failed = (await http().get(`${BASE}/bookings?status=failed&limit=500`).set(asAdmin()).expect(200)).body as { shipmentId: string; status: string }[];
    expect(failed.find((b) => b.shipmentId === id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.every((b) => b.status === 'failed')).toBe(true);
    const booked = (await http().get(`${BASE}/bookings?status=success&limit=500`).set(asAdmin()).expect(200)).body as { shipmentId: string }[];
    expect(booked.some((b) => b.shipmentId === id)).toBe(false);
    await http().get(`${BASE}/bookings?status=lost`).set(asAdmin()).expect(400);
    await http().get(`${BASE}/bookings?status=failed`).set(asCustomer()).expect(403);
  });

  test('a carrier that does not answer in time: pending_retry with the timeout as the error', async () => {
    const id = givenShipment();
    carrier.hangNext(1);
    const result = await book(id);
    expect(result).toMatchObject({ success: false, status: 'pending_retry' });
    expect(result.error).toMatch(/no answer within 400 ms/);
    await waitFor(async () => (await bookingOf(id)).status === 'success');
  });

  test('refusals: unknown 404, not paid or processing 409, no carrier 409, no pickup address 409, bad id 400', async () => {
    expect((await http().post(`${BASE}/${randomUUID()}/book`).set(asAdmin()).expect(404)).body.code).toBe('not_found');
    for (const status of ['pending_payment', 'awaiting_pickup', 'shipped', 'delivered', 'cancelled'] as const) {
      const res = await http().post(`${BASE}/${givenShipment({}, status)}/book`).set(asAdmin()).expect(409);
      expect(res.body.code).toBe('not_bookable');
    }
    expect(await book(givenShipment({}, 'processing'))).toMatchObject({ success: true });
    expect((await http().post(`${BASE}/${givenShipment({ provider: null })}/book`).set(asAdmin()).expect(409)).body.code).toBe('no_carrier');
    expect((await http().post(`${BASE}/${givenShipment({ pickupAddress: null })}/book`).set(asAdmin()).expect(409)).body.code).toBe('no_pickup_address');
    await http().post(`${BASE}/nope/book`).set(asAdmin()).expect(400);
    await http().get(`${BASE}/${randomUUID()}/booking`).set(asAdmin()).expect(404);
    expect((await http().get(`${BASE}/${randomUUID()}/label-url`).set(asAdmin()).expect(404)).body.code).toBe('not_found');
  });

  test('a label URL needs a booked shipment (409 not_booked)', async () => {
    const id = givenShipment();
    carrier.rejectNext(1);
    await book(id);
    expect((await http().get(`${BASE}/${id}/label-url`).set(asAdmin()).expect(409)).body.code).toBe('not_booked');
  });

  test('administrators only: 403 for customers and vendors, 401 anonymous', async () => {
    const id = givenShipment();
    for (const headers of [asCustomer(), asVendor()]) {
      await http().post(`${BASE}/${id}/book`).set(headers).expect(403);
      await http().get(`${BASE}/${id}/booking`).set(headers).expect(403);
      await http().get(`${BASE}/${id}/label-url`).set(headers).expect(403);
    }
    await http().post(`${BASE}/${id}/book`).set(signedHeaders(null)).expect(401);
    expect(requestsFor(id)).toHaveLength(0);
  });

  test('two book calls at once: one carrier booking', async () => {
    const id = givenShipment();
    const results = await Promise.all([0, 1, 2].map(() => http().post(`${BASE}/${id}/book`).set(asAdmin()).expect(200)));
    expect(results.filter((r) => r.body.success === true).length).toBeGreaterThanOrEqual(1);
    expect(requestsFor(id)).toHaveLength(1);
    await waitFor(async () => (await bookingOf(id)).status === 'success');
  });
});

describe('signed label URLs', () => {
  test('tampered or expired → 403; a valid one serves the PDF without a session', async () => {
    const id = givenShipment();
    const { labelUrl } = await book(id);
    const url = new URL(labelUrl as string, 'http://admin');
    const signature = url.searchParams.get('signature') as string;
    const expires = url.searchParams.get('expires') as string;
    const path = url.pathname;

    await http().get(`${path}?expires=${expires}&signature=${signature}`).set(signedHeaders(null)).expect(200);
    const flipped = (signature[0] === '0' ? '1' : '0') + signature.slice(1);
    for (const query of [
      `expires=${expires}&signature=${flipped}`,
      `expires=${Number(expires) + 3600}&signature=${signature}`,
      `expires=${expires}`,
      `signature=${signature}`,
      '',
      `expires=${expires}&signature=${signature}&extra=1`,
    ]) {
      const res = await http().get(`${path}?${query}`).set(signedHeaders(null)).expect(403);
      expect(res.body.code).toBe('label_url_invalid');
    }
    const otherShipment = path.replace(id, randomUUID());
    await http().get(`${otherShipment}?expires=${expires}&signature=${signature}`).set(signedHeaders(null)).expect(403);
    await http().get(`/api/v1/shipment-labels/not-a-uuid?expires=${expires}&signature=${signature}`).set(signedHeaders(null)).expect(403);

    const expired = signedLabelUrl(t.config.LABEL_SIGNING_KEY, '/api/v1', id, new Date(Date.now() - 2 * 60 * 60 * 1000));
    const res = await http().get(expired.url).set(signedHeaders(null)).expect(403);
    expect(res.body.code).toBe('label_url_expired');
  });
});

describe('the retry schedule is durable', () => {
  test('a restart of admin loses no retry', async () => {
    const id = givenShipment();
    carrier.failNext(2);
    expect(await book(id)).toMatchObject({ status: 'pending_retry' });
    await t.restart({
      CARRIER_A_URL: carrier.url,
      CARRIER_B_URL: carrier.url,
      CARRIER_TIMEOUT_MS: '400',
      CARRIER_RETRY_WAITS: '300ms,300ms,300ms,300ms,300ms',
      CARRIER_RETRY_POLL_MS: '100',
    });
    const booked = await waitFor(async () => {
      const record = await bookingOf(id);
      return record.status === 'success' ? record : null;
    });
    expect(booked.attempts).toBe(3);
    expect(requestsFor(id)).toHaveLength(3);
  });

  test('two workers claim disjoint bookings (FOR UPDATE SKIP LOCKED), each attempt counted once', async () => {
    const future = new Date(Date.now() + 24 * 60 * 60 * 1000);
    const ids: string[] = Array.from({ length: 12 }, () => randomUUID());
    await t.admin.prisma.carrierBooking.createMany({
      data: ids.map((shipmentId) => ({
        shipmentId,
        orderId: randomUUID(),
        carrier: 'carrier_a' as const,
        status: 'pending_retry' as const,
        attempts: 1,
        nextAttemptAt: new Date(future.getTime() - 1000),
        request: {},
      })),
    });
    const later = { ...depsOf(t), clock: () => future };
    const [a, b] = await Promise.all([claimDueBookings(later, 8), claimDueBookings(later, 8)]);
    const claimed = [...a, ...b].map((row) => row.shipmentId).filter((sid) => ids.includes(sid));
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.length).toBe(12);
    const rows = await t.admin.prisma.carrierBooking.findMany({ where: { shipmentId: { in: ids } } });
    expect(rows.every((row) => row.attempts === 2 && row.claimedUntil !== null && row.claimedUntil > future)).toBe(true);
    // leased: nothing is due again until the lease ends
    expect(await claimDueBookings(later, 20)).toEqual([]);
    await t.admin.prisma.carrierBooking.deleteMany({ where: { shipmentId: { in: ids } } });
  });

  test('two admin instances on one schema: every retry is made once', async () => {
    const second = await startAdmin(t.config, { log: silentLog });
    try {
      const ids = [givenShipment(), givenShipment(), givenShipment()];
      carrier.failNext(6);
      for (const id of ids) expect(await book(id)).toMatchObject({ status: 'pending_retry' });
      for (const id of ids) await waitFor(async () => (await bookingOf(id)).status === 'success');
      // 3 first attempts + 3 failed retries use up the 6 failures; each booking then succeeds once
      const requests = ids.map((id) => requestsFor(id));
      expect(requests.flat()).toHaveLength(9);
      for (const [i, id] of ids.entries()) {
        expect((await bookingOf(id)).attempts).toBe(requests[i].length);
        expect(requests[i].filter((r) => r.answered === 201)).toHaveLength(1);
      }
    } finally {
      await second.close();
    }
  });

  test('a worker round with nothing due does nothing', async () => {
    expect(await retryDueBookings({ ...depsOf(t), clock: () => new Date(0) })).toBe(0);
  });
});
