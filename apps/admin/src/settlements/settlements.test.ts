import { randomUUID } from 'node:crypto';
import { settlementImportResult, settlementRecord, vendorShipmentStatusChanged } from '@pasar/contracts';
import { eventEnvelope, publishEvent, shipmentChange, signedHeaders, waitFor } from '@pasar/testkit';
import request from 'supertest';
import { z } from 'zod';
import { asAdmin, asCustomer, asVendor, startTestAdmin, type TestAdmin } from '../../test/admin';
import { indexTracking } from '../tracking/events';
import { IMPORT_BATCH_SIZE } from './settlements';

const IMPORT = '/api/v1/admin/shipping/settlements/import';
const LIST = '/api/v1/admin/shipping/settlements';
const HEADER_A = 'Waybill No,Billing Date,Weight (kg),Amount (MYR)';
const HEADER_B = 'Tracking Number,Invoice Date,Chargeable Weight,Total Charge';

let t: TestAdmin;
beforeAll(async () => {
  t = await startTestAdmin();
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.admin.url);
const unique = (prefix: string) => `${prefix}${randomUUID().slice(0, 8).toUpperCase()}`;

/** vendor shipped a shipment with this tracking id: the event admin's tracking index consumes. */
async function shipped(trackingId: string, orderId: string = randomUUID(), shipmentId: string = randomUUID()): Promise<string> {
  const data = shipmentChange({ shipmentId, orderId, status: 'shipped', previousStatus: 'processing', courier: 'carrier_a', trackingId, shippedAt: new Date().toISOString() });
  const event = eventEnvelope(vendorShipmentStatusChanged, data, 'vendor', data.changedAt);
  await publishEvent(t.peer.bus, event);
  await waitFor(() => t.admin.prisma.trackingIndex.findUnique({ where: { trackingId } }));
  return orderId;
}

async function importCsv(carrier: 'carrier_a' | 'carrier_b', csvText: string, admin = asAdmin()) {
  const res = await http().post(IMPORT).set(admin).send({ carrier, csvText }).expect(200);
  return settlementImportResult.parse(res.body);
}

describe('POST /admin/shipping/settlements/import', () => {
  test('exact counts on a file with duplicates, unmatched ids and bad rows; the same file again is all duplicates', async () => {
    const [known1, known2, stranger] = [unique('CA'), unique('CA'), unique('ZZ')];
    const orderId = await shipped(known1);
    await shipped(known2);
    const csv = [
      HEADER_A,
      `${known1},2026-11-01,1.20,12.50`, // inserted
      `${known2},2026-11-01,0.50,6.00`, // inserted
      `${known1},2026-11-01,1.20,12.50`, // duplicate within the file
      `${known1},2026-11-02,1.20,3.00`, // inserted: another billing date
      `${stranger},2026-11-01,2.00,20.00`, // inserted, unmatched
      `${stranger},2026-11-01,2.00,20.00`, // duplicate, unmatched
      `${known2},2026-02-30,1,1`, // bad date
      'only,three,columns', // bad row
      `${known2},2026-11-03,heavy,1.00`, // bad weight
    ].join('\n');

    const first = await importCsv('carrier_a', csv);
    expect(first).toEqual({
      total: 9,
      inserted: 4,
      duplicate: 2,
      unmatched: 2,
      parseErrors: [
        'line 8: Billing Date "2026-02-30" is not a date (YYYY-MM-DD)',
        'line 9: expected 4 columns, got 3',
        'line 10: Weight (kg) "heavy" is not a weight',
      ],
      unmatchedTrackingIds: [stranger],
    });

    const second = await importCsv('carrier_a', csv);
    expect(second).toMatchObject({ total: 9, inserted: 0, duplicate: 6, unmatched: 2, unmatchedTrackingIds: [stranger] });
    expect(second.parseErrors).toHaveLength(3);

    const rows = await t.admin.prisma.settlementRecord.findMany({ where: { trackingId: { in: [known1, known2, stranger] } } });
    expect(rows).toHaveLength(4);
    expect(rows.find((r) => r.trackingId === known1 && r.billedOn.toISOString().startsWith('2026-11-01'))).toMatchObject({ adjustmentOrderId: orderId });
    expect(rows.find((r) => r.trackingId === stranger)?.adjustmentOrderId).toBeNull();

    // the same tracking id and date from the other carrier is another record
    const other = await importCsv('carrier_b', [HEADER_B, `${known1},01/11/2026,1.2,12.50`].join('\r\n'));
    expect(other).toMatchObject({ total: 1, inserted: 1, duplicate: 0, unmatched: 0 });
  });

  test('counts stay exact across batches (a duplicate in another batch of the same file)', async () => {
    const lines = [HEADER_A];
    const first = unique('BATCH');
    lines.push(`${first},2026-10-01,1,1.00`);
    for (let i = 1; i < IMPORT_BATCH_SIZE + 10; i += 1) lines.push(`${first}-${i},2026-10-01,1,1.00`);
    lines.push(`${first},2026-10-01,1,1.00`); // the first row again, in the second batch
    const result = await importCsv('carrier_a', lines.join('\n'));
    expect(result).toMatchObject({ total: IMPORT_BATCH_SIZE + 11, inserted: IMPORT_BATCH_SIZE + 10, duplicate: 1, unmatched: IMPORT_BATCH_SIZE + 11 });
    expect(result.unmatchedTrackingIds).toHaveLength(IMPORT_BATCH_SIZE + 10);
  });

  /** A 2,000-row file of tracking ids no shipment has, starting with `prefix`. */
  function twoThousandRows(prefix: string): string {
    const lines = [HEADER_A];
    for (let i = 0; i < 2_000; i += 1) lines.push(`${prefix}-${i},2026-10-${String((i % 28) + 1).padStart(2, '0')},${(0.5 + (i % 9) / 10).toFixed(2)},${(4 + (i % 50) / 10).toFixed(2)}`);
    return lines.join('\n');
  }

  /** Every stored row of the file, as a comparable snapshot (ids, amounts, import stamps). */
  const snapshot = (prefix: string) =>
    t.admin.prisma.settlementRecord.findMany({ where: { trackingId: { startsWith: `${prefix}-` } }, orderBy: { seq: 'asc' } });

  test('2,000 rows imported again change nothing: no row added, none touched', async () => {
    const prefix = unique('AGAIN');
    const csv = twoThousandRows(prefix);
    expect(await importCsv('carrier_a', csv)).toMatchObject({ total: 2_000, inserted: 2_000, duplicate: 0 });
    const before = await snapshot(prefix);
    expect(before).toHaveLength(2_000);

    expect(await importCsv('carrier_a', csv, asAdmin())).toMatchObject({ total: 2_000, inserted: 0, duplicate: 2_000 });
    expect(await snapshot(prefix)).toEqual(before);
  });

  test('two imports of the same 2,000 rows at once: each row stored once, the counts add up', async () => {
    const prefix = unique('RACE');
    const csv = twoThousandRows(prefix);
    const [a, b] = await Promise.all([importCsv('carrier_a', csv), importCsv('carrier_a', csv)]);
    expect(a.inserted + b.inserted).toBe(2_000);
    expect(a.duplicate + b.duplicate).toBe(2_000);
    const rows = await snapshot(prefix);
    expect(rows).toHaveLength(2_000);
    expect(new Set(rows.map((r) => `${r.trackingId} ${r.billedOn.toISOString()}`)).size).toBe(2_000);
  });

  test('a re-ship that corrects the tracking id: the old and the new id both match', async () => {
    const old = unique('OLD');
    const corrected = unique('NEW');
    const shipmentId = randomUUID();
    const orderId = await shipped(old, undefined, shipmentId);
    await shipped(corrected, orderId, shipmentId);
    const result = await importCsv('carrier_a', [HEADER_A, `${old},2026-11-05,1,1`, `${corrected},2026-11-05,1,1`].join('\n'));
    expect(result).toMatchObject({ inserted: 2, unmatched: 0 });
  });

  test('a status change without a tracking id indexes nothing; the same id again moves to its newest shipment', async () => {
    const base = { orderId: randomUUID(), storeId: randomUUID(), status: 'cancelled' as const, previousStatus: 'paid' as const, courier: null, trackingUrl: null, shippedAt: null, deliveredAt: null, cancelledAt: null, reason: null, changedAt: new Date().toISOString() };
    const before = await t.admin.prisma.trackingIndex.count();
    await t.admin.prisma.$transaction((tx) => indexTracking(tx, { ...base, shipmentId: randomUUID(), trackingId: null }));
    await t.admin.prisma.$transaction((tx) => indexTracking(tx, { ...base, shipmentId: randomUUID(), trackingId: '   ' }));
    expect(await t.admin.prisma.trackingIndex.count()).toBe(before);
    const id = unique('MOVE');
    const [first, second] = [randomUUID(), randomUUID()];
    await t.admin.prisma.$transaction((tx) => indexTracking(tx, { ...base, shipmentId: first, trackingId: id }));
    await t.admin.prisma.$transaction((tx) => indexTracking(tx, { ...base, shipmentId: second, trackingId: ` ${id} ` }));
    expect(await t.admin.prisma.trackingIndex.findUniqueOrThrow({ where: { trackingId: id } })).toMatchObject({ shipmentId: second });
  });

  test('a wrong header answers 400 wrong_header and imports nothing', async () => {
    const id = unique('HDR');
    for (const [carrier, header] of [
      ['carrier_a', HEADER_B],
      ['carrier_b', HEADER_A],
      ['carrier_a', 'Waybill No,Billing Date,Weight,Amount (MYR)'],
    ] as const) {
      const res = await http().post(IMPORT).set(asAdmin()).send({ carrier, csvText: `${header}\n${id},2026-11-01,1,1\n` }).expect(400);
      expect(res.body).toMatchObject({ code: 'wrong_header' });
      expect(res.body.detail).toContain(carrier === 'carrier_a' ? HEADER_A : HEADER_B);
    }
    expect(await t.admin.prisma.settlementRecord.count({ where: { trackingId: id } })).toBe(0);
  });

  test('validates the body: carrier, csvText (400); JSON only (415)', async () => {
    for (const body of [{ carrier: 'carrier_c', csvText: HEADER_A }, { carrier: 'carrier_a' }, { carrier: 'carrier_a', csvText: 7 }, { carrier: 'carrier_a', csvText: '' }, { carrier: 'carrier_a', csvText: HEADER_A, extra: 1 }, []]) {
      const res = await http().post(IMPORT).set(asAdmin()).send(body).expect(400);
      expect(res.body.code).toBe('validation_failed');
    }
    await http().post(IMPORT).set(asAdmin()).type('text/csv').send(`${HEADER_A}\n`).expect(415);
    await http().post(IMPORT).set(asAdmin()).type('application/json').send('{"carrier":').expect(400);
  });

  test('takes a body of several MiB on this route only; over the route limit 413', async () => {
    const big = [HEADER_A];
    const prefix = unique('BIG');
    for (let i = 0; i < 60_000; i += 1) big.push(`${prefix}-${i},2026-09-01,1.25,10.50`);
    const csvText = big.join('\n');
    expect(Buffer.byteLength(csvText)).toBeGreaterThan(2 * 1024 * 1024);
    const result = await importCsv('carrier_a', csvText);
    expect(result).toMatchObject({ total: 60_000, inserted: 60_000, duplicate: 0 });

    const tooBig = JSON.stringify({ carrier: 'carrier_a', csvText: 'x'.repeat(22 * 1024 * 1024) });
    const res = await http().post(IMPORT).set(asAdmin()).type('application/json').send(tooBig).expect(413);
    expect(res.body.code).toBe('payload_too_large');
    // every other route keeps the 1 MiB limit
    await http()
      .post('/api/v1/admin/vendor-applications/00000000-0000-4000-8000-000000000000/reject')
      .set(asAdmin())
      .type('application/json')
      .send(JSON.stringify({ note: 'x'.repeat(2 * 1024 * 1024) }))
      .expect(413);
  }, 180_000); // 60,000 rows, then a 22 MiB body: room on a busy machine

  test('administrators only', async () => {
    await http().post(IMPORT).set(asCustomer()).send({ carrier: 'carrier_a', csvText: HEADER_A }).expect(403);
    await http().post(IMPORT).set(asVendor()).send({ carrier: 'carrier_a', csvText: HEADER_A }).expect(403);
    await http().post(IMPORT).set(signedHeaders(null)).send({ carrier: 'carrier_a', csvText: HEADER_A }).expect(401);
    await http().get(LIST).set(asVendor()).expect(403);
  });
});

describe('GET /admin/shipping/settlements', () => {
  test('newest first, limit 1..1000 (default 100), the spec record in snake_case', async () => {
    const admin = randomUUID();
    const id = unique('LIST');
    await importCsv('carrier_b', [HEADER_B, `${id}-1,02/11/2026,1,3.5`, `${id}-2,03/11/2026,1,4`].join('\n'), asAdmin(admin));

    const list = z.array(settlementRecord).parse((await http().get(`${LIST}?limit=2`).set(asAdmin()).expect(200)).body);
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual({
      id: expect.any(String),
      carrier: 'carrier_b',
      tracking_id: `${id}-2`,
      actual_cost: '4.00',
      billed_on: '2026-11-03',
      imported_at: expect.stringMatching(/Z$/),
      imported_by: admin,
      adjustment_order_id: null,
      notes: null,
    });
    expect(list[1].tracking_id).toBe(`${id}-1`);

    expect((await http().get(LIST).set(asAdmin()).expect(200)).body).toHaveLength(100);
    expect((await http().get(`${LIST}?limit=1000`).set(asAdmin()).expect(200)).body).toHaveLength(1000);
    for (const limit of ['0', '1001', 'ten', '2.5']) await http().get(`${LIST}?limit=${limit}`).set(asAdmin()).expect(400);
  });
});
