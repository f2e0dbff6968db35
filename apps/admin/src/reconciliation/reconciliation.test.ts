import { randomUUID } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import { RpcRefusal, serveRpc } from '@pasar/bus';
import {
  bookingResult,
  reconciliationHistory,
  reconciliationPage,
  settlementImportResult,
  vendorBookingContext,
  vendorShipmentStatusChanged,
  type ReconciliationLine,
  type RpcResponse,
} from '@pasar/contracts';
import { eventEnvelope, publishEvent, shipmentChange, signedHeaders, waitFor } from '@pasar/testkit';
import { parse as parseCsv } from 'csv-parse/sync';
import request from 'supertest';
import { asAdmin, asCustomer, asVendor, startTestAdmin, type TestAdmin } from '../../test/admin';
import { centsOf, moneyOf } from './rules';

type BookingContext = RpcResponse<typeof vendorBookingContext>;

const RECON = '/api/v1/admin/shipping/reconciliation';
const IMPORT = '/api/v1/admin/shipping/settlements/import';
const HEADER_A = 'Waybill No,Billing Date,Weight (kg),Amount (MYR)';

let t: TestAdmin;
let vendorRpc: Subscription;
const contexts = new Map<string, BookingContext>();

beforeAll(async () => {
  // mock carrier (instant bookings); a booked parcel never billed is unbilled after 2 s here
  t = await startTestAdmin({ CARRIER_MOCK: 'true', RECON_UNBILLED_AFTER: '2s' });
  vendorRpc = serveRpc(t.peer.bus, vendorBookingContext, async ({ shipmentId }) => {
    const context = contexts.get(shipmentId);
    if (!context) throw new RpcRefusal('not_found', 'no such shipment');
    return context;
  });
});
afterAll(async () => {
  vendorRpc?.unsubscribe();
  await t?.stop();
});

const http = () => request(t.admin.url);

interface Parcel {
  shipmentId: string;
  storeId: string;
  trackingId: string;
}

/** A shipment of one 1.000 kg item quoted 10.00 MYR, booked (mock carrier). */
async function booked(item: Partial<BookingContext['items'][number]> = {}): Promise<Parcel> {
  const shipmentId = randomUUID();
  const storeId = randomUUID();
  contexts.set(shipmentId, {
    shipment: { id: shipmentId, orderId: randomUUID(), storeId, status: 'paid', shippingMethodId: randomUUID() },
    provider: 'carrier_a',
    recipient: { fullName: 'Ali Bakar', phone: '+60111111111', addressLine1: '1 Jalan Ampang', addressLine2: null, city: 'Kuala Lumpur', postcode: '50450', state: 'WP Kuala Lumpur' },
    items: [{ productName: 'Kopi', quantity: 1, weightKg: '1.000', ...item }],
    pickupAddress: { id: randomUUID(), label: 'Warehouse', addressLine1: '9 Jalan Gudang', postcode: '40000', state: 'Selangor' },
    quote: { amount: '10.00', currency: 'MYR' },
  });
  const res = await http().post(`/api/v1/admin/shipments/${shipmentId}/book`).set(asAdmin()).expect(200);
  const result = bookingResult.parse(res.body);
  expect(result.status).toBe('success');
  return { shipmentId, storeId, trackingId: result.trackingNumber as string };
}

/** vendor.shipment.status_changed for the parcel, as vendor publishes it. */
async function vendorSays(parcel: Parcel, status: 'shipped' | 'cancelled'): Promise<void> {
  const at = new Date().toISOString();
  const data = shipmentChange({
    shipmentId: parcel.shipmentId,
    orderId: contexts.get(parcel.shipmentId)?.shipment.orderId ?? randomUUID(),
    storeId: parcel.storeId,
    status,
    previousStatus: 'awaiting_pickup',
    courier: 'carrier_a',
    trackingId: parcel.trackingId,
    shippedAt: status === 'shipped' ? at : null,
    cancelledAt: status === 'cancelled' ? at : null,
    changedAt: at,
  });
  const event = eventEnvelope(vendorShipmentStatusChanged, data, 'vendor', at);
  await publishEvent(t.peer.bus, event);
  await waitFor(async () => (await t.admin.prisma.shipmentState.findUnique({ where: { shipmentId: parcel.shipmentId } }))?.status === status);
}

async function importCsv(rows: string[]) {
  const res = await http().post(IMPORT).set(asAdmin()).send({ carrier: 'carrier_a', csvText: [HEADER_A, ...rows].join('\n') }).expect(200);
  return settlementImportResult.parse(res.body);
}

async function page(query = '') {
  const res = await http().get(`${RECON}${query}`).set(asAdmin()).expect(200);
  return reconciliationPage.parse(res.body);
}

/** Every line, walked page by page with the cursor. */
async function allLines(query: string, limit: number): Promise<ReconciliationLine[]> {
  const lines: ReconciliationLine[] = [];
  let cursor: string | null = null;
  do {
    const current = await page(`?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    lines.push(...current.lines);
    cursor = current.nextCursor;
  } while (cursor);
  return lines;
}

const lineOf = (lines: ReconciliationLine[], trackingId: string) => lines.find((line) => line.trackingId === trackingId);

describe('GET /admin/shipping/reconciliation', () => {
  let heavy: Parcel, roomy: Parcel, pricey: Parcel, twice: Parcel, cancelled: Parcel, forgotten: Parcel, fine: Parcel;
  const stranger = `ZZ${randomUUID().slice(0, 8).toUpperCase()}`;
  const firstFile = () => [
    `${heavy.trackingId},2026-11-01,2.0,10.00`,
    `${roomy.trackingId},2026-11-01,2.0,10.00`,
    `${pricey.trackingId},2026-11-01,1.0,12.00`,
    `${twice.trackingId},2026-11-01,1.0,10.00`,
    `${stranger},2026-11-01,0.5,4.40`,
    `${cancelled.trackingId},2026-11-01,1.0,10.00`,
    `${fine.trackingId},2026-11-01,1.05,10.40`,
  ];

  beforeAll(async () => {
    [heavy, pricey, twice, cancelled, forgotten, fine] = await Promise.all([booked(), booked(), booked(), booked(), booked(), booked()]);
    // 30 × 20 × 20 cm = 12,000 cm³ / 6000 (carrier_a) = 2.000 kg volumetric
    roomy = await booked({ dimensionsCm: { lengthCm: '30', widthCm: '20', heightCm: '20' } });
    await vendorSays(forgotten, 'shipped');
    await vendorSays(cancelled, 'cancelled');
    expect(await importCsv(firstFile())).toMatchObject({ total: 7, inserted: 7, unmatched: 1 });
    // the second file bills `twice` again on another day
    expect(await importCsv([`${twice.trackingId},2026-11-08,1.0,10.00`])).toMatchObject({ inserted: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // past RECON_UNBILLED_AFTER for `forgotten`
  }, 60_000);

  test('the booking keeps declared and volumetric weight and the quote; the bill keeps its weight', async () => {
    const booking = await t.admin.prisma.carrierBooking.findUniqueOrThrow({ where: { shipmentId: roomy.shipmentId } });
    expect({ declared: booking.declaredKg?.toFixed(3), volumetric: booking.volumetricKg?.toFixed(3), quoted: booking.quotedCost?.toFixed(2), currency: booking.quotedCurrency, storeId: booking.storeId }).toEqual({
      declared: '1.000',
      volumetric: '2.000',
      quoted: '10.00',
      currency: 'MYR',
      storeId: roomy.storeId,
    });
    const bill = await t.admin.prisma.settlementRecord.findFirstOrThrow({ where: { trackingId: heavy.trackingId } });
    expect(bill.billedKg?.toFixed(3)).toBe('2.000');
  });

  test('each case flagged: weight_over, cost_over, duplicate_bill, unknown_parcel, billed_cancelled, unbilled; the rest clean', async () => {
    const lines = await allLines('', 1000);
    expect(lineOf(lines, heavy.trackingId)).toEqual({
      trackingId: heavy.trackingId,
      shipmentId: heavy.shipmentId,
      storeId: heavy.storeId,
      carrier: 'carrier_a',
      declaredKg: '1.000',
      volumetricKg: null,
      billedKg: '2.000',
      expectedCost: '10.00',
      billedCost: '10.00',
      variance: '0.00',
      currency: 'MYR',
      flags: ['weight_over'],
      status: 'open',
    });
    expect(lineOf(lines, roomy.trackingId)).toMatchObject({ volumetricKg: '2.000', billedKg: '2.000', flags: [], status: 'ok' });
    expect(lineOf(lines, pricey.trackingId)).toMatchObject({ billedCost: '12.00', variance: '2.00', flags: ['cost_over'] });
    expect(lineOf(lines, twice.trackingId)).toMatchObject({ billedCost: '20.00', variance: '10.00', flags: ['duplicate_bill'] });
    expect(lineOf(lines, stranger)).toMatchObject({ shipmentId: null, expectedCost: null, billedCost: '4.40', variance: null, flags: ['unknown_parcel'] });
    expect(lineOf(lines, cancelled.trackingId)).toMatchObject({ flags: ['billed_cancelled'] });
    expect(lineOf(lines, forgotten.trackingId)).toMatchObject({ billedCost: null, billedKg: null, expectedCost: '10.00', flags: ['unbilled'] });
    expect(lineOf(lines, fine.trackingId)).toMatchObject({ variance: '0.40', flags: [], status: 'ok' });
  });

  test('totals over every selected line equal the sum of the lines to the cent; paging with the cursor sees each line once', async () => {
    const first = await page('?limit=1000');
    const walked = await allLines('', 2);
    expect(walked.map((l) => l.trackingId)).toEqual(first.lines.map((l) => l.trackingId));
    expect(new Set(walked.map((l) => l.trackingId)).size).toBe(walked.length);
    const sum = (pick: (l: ReconciliationLine) => string | null) => moneyOf(walked.reduce((cents, l) => cents + centsOf(pick(l) ?? '0'), 0));
    expect(first.totals).toMatchObject({ lines: walked.length, expected: sum((l) => l.expectedCost), billed: sum((l) => l.billedCost), variance: sum((l) => l.variance) });
    for (const [flag, total] of Object.entries(first.totals.byFlag)) {
      const flagged = walked.filter((l) => l.flags.includes(flag as ReconciliationLine['flags'][number]));
      expect({ flag, ...total }).toEqual({ flag, lines: flagged.length, variance: moneyOf(flagged.reduce((c, l) => c + centsOf(l.variance ?? '0'), 0)) });
    }
    expect(first.totals.byFlag.weight_over.lines).toBeGreaterThanOrEqual(1);
  });

  test('filters: flag, carrier, billing days', async () => {
    const duplicates = await page('?flag=duplicate_bill');
    expect(duplicates.lines.map((l) => l.trackingId)).toEqual([twice.trackingId]);
    expect(duplicates.totals).toMatchObject({ lines: 1, billed: '20.00', expected: '10.00', variance: '10.00' });
    expect((await page('?carrier=carrier_b')).totals.lines).toBe(0);
    // only the second file's day: `twice` billed once in that range
    const lateDays = await page('?from=2026-11-05&to=2026-11-10');
    expect(lateDays.lines.map((l) => l.trackingId)).toEqual([twice.trackingId]);
    expect(lateDays.lines[0]).toMatchObject({ billedCost: '10.00', flags: [] });
    for (const bad of ['flag=heavy', 'carrier=carrier_c', 'from=2026-13-01', 'limit=0', 'limit=1001', 'format=xml']) {
      const res = await http().get(`${RECON}?${bad}`).set(asAdmin()).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  test('the same file imported again changes nothing', async () => {
    const before = await page('?limit=1000');
    expect(await importCsv(firstFile())).toMatchObject({ inserted: 0, duplicate: 7 });
    expect(await page('?limit=1000')).toEqual(before);
  });

  test('CSV by Accept: text/csv or ?format=csv: the same lines', async () => {
    const json = await page('?limit=1000');
    for (const ask of [(r: request.Test) => r.set('accept', 'text/csv'), (r: request.Test) => r.query({ format: 'csv' })]) {
      const res = await ask(http().get(RECON).set(asAdmin())).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const rows = parseCsv(res.text, { columns: true }) as Record<string, string>[];
      expect(rows.map((r) => r.trackingId)).toEqual(json.lines.map((l) => l.trackingId));
      expect(rows.find((r) => r.trackingId === heavy.trackingId)).toMatchObject({ declaredKg: '1.000', billedKg: '2.000', expectedCost: '10.00', flags: 'weight_over', volumetricKg: '' });
    }
    const flagged = await http().get(`${RECON}?format=csv&flag=duplicate_bill`).set(asAdmin()).expect(200);
    expect(flagged.text.trim().split('\n')).toHaveLength(2);
  });

  test('dispute then resolve: the line keeps who, when and the note; a resolved line takes no more', async () => {
    const disputer = randomUUID();
    const resolver = randomUUID();
    const disputed = reconciliationHistory.parse(
      (await http().post(`${RECON}/${heavy.trackingId}/dispute`).set(asAdmin(disputer)).send({ note: 'billed 2 kg for a 1 kg parcel' }).expect(200)).body,
    );
    expect(disputed).toMatchObject({ trackingId: heavy.trackingId, status: 'disputed', history: [{ action: 'dispute', note: 'billed 2 kg for a 1 kg parcel', by: disputer, outcome: null }] });
    expect(lineOf((await page('?flag=weight_over')).lines, heavy.trackingId)?.status).toBe('disputed');

    const resolved = reconciliationHistory.parse(
      (await http().post(`${RECON}/${heavy.trackingId}/resolve`).set(asAdmin(resolver)).send({ note: 'carrier credited 5.00', outcome: 'credited' }).expect(200)).body,
    );
    expect(resolved.status).toBe('resolved');
    expect(resolved.history.map((h) => [h.action, h.by, h.outcome])).toEqual([
      ['dispute', disputer, null],
      ['resolve', resolver, 'credited'],
    ]);
    expect(Date.parse(resolved.history[1].at)).toBeGreaterThanOrEqual(Date.parse(resolved.history[0].at));
    expect(lineOf((await page('?flag=weight_over')).lines, heavy.trackingId)?.status).toBe('resolved');

    const resolveAgain = await http().post(`${RECON}/${heavy.trackingId}/resolve`).set(asAdmin()).send({ note: 'again', outcome: 'accepted' }).expect(409);
    expect(resolveAgain.body.code).toBe('already_resolved');
    const disputeAgain = await http().post(`${RECON}/${heavy.trackingId}/dispute`).set(asAdmin()).send({ note: 'again' }).expect(409);
    expect(disputeAgain.body.code).toBe('already_resolved');
  });

  test('concurrent resolves of one line: exactly one wins', async () => {
    const outcomes = await Promise.all(
      [1, 2, 3].map(() => http().post(`${RECON}/${pricey.trackingId}/resolve`).set(asAdmin()).send({ note: 'accepted the surcharge', outcome: 'accepted' })),
    );
    expect(outcomes.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await t.admin.prisma.reconciliationNote.count({ where: { trackingId: pricey.trackingId } })).toBe(1);
  });

  test('bad input: unknown tracking id 404, empty note and unknown outcome 400; nothing written', async () => {
    const unknown = await http().post(`${RECON}/NOPE${randomUUID().slice(0, 6)}/dispute`).set(asAdmin()).send({ note: 'x' }).expect(404);
    expect(unknown.body.code).toBe('not_found');
    for (const body of [{}, { note: '   ' }, { note: 'x', extra: 1 }]) {
      expect((await http().post(`${RECON}/${twice.trackingId}/dispute`).set(asAdmin()).send(body).expect(400)).body.code).toBe('validation_failed');
    }
    for (const body of [{ note: 'x' }, { note: 'x', outcome: 'maybe' }]) {
      expect((await http().post(`${RECON}/${twice.trackingId}/resolve`).set(asAdmin()).send(body).expect(400)).body.code).toBe('validation_failed');
    }
    await http().post(`${RECON}/bad%20id/dispute`).set(asAdmin()).send({ note: 'x' }).expect(400);
    expect(await t.admin.prisma.reconciliationNote.count({ where: { trackingId: twice.trackingId } })).toBe(0);
  });

  test('administrators only', async () => {
    await http().get(RECON).set(asCustomer()).expect(403);
    await http().get(RECON).set(asVendor()).expect(403);
    await http().get(RECON).set(signedHeaders(null)).expect(401);
    await http().post(`${RECON}/${twice.trackingId}/dispute`).set(asCustomer()).send({ note: 'x' }).expect(403);
    await http().post(`${RECON}/${twice.trackingId}/resolve`).set(asVendor()).send({ note: 'x', outcome: 'accepted' }).expect(403);
  });
});
