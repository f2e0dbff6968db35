/**
 * POST /payments/notify is public: anyone can call it. A body larger than the gateway ever sends
 * is refused before anything is stored; an unsigned call stores only the bounded known fields;
 * old notifications are pruned.
 */
import { randomUUID } from 'node:crypto';
import { signedHeaders, silentLog, waitFor } from '@pasar/testkit';
import request from 'supertest';
import { useTestCheckout } from '../../test/checkout';
import { seedPendingOrder } from '../lifecycle/test-fixtures';
import { prunePaymentNotifications, startNotificationPruning } from './pruning';
import { notificationSkey, type SignedNotificationFields } from './rules';

const t = useTestCheckout();
const post = () => request(t.checkout.url).post('/api/v1/payments/notify').set(signedHeaders(null));
const stored = () => t.checkout.prisma.paymentNotification.count();

const signedFields = async () => {
  const order = await seedPendingOrder(t.checkout.prisma);
  const fields: SignedNotificationFields = {
    tranID: `T-${randomUUID()}`,
    orderid: order.shortId,
    status: '00',
    domain: t.checkout.config.PAYMENT_MERCHANT_ID,
    amount: order.total,
    currency: 'MYR',
    paydate: '2026-03-01 10:15:00',
    appcode: 'A'.repeat(100),
  };
  return { order, fields: { ...fields, skey: notificationSkey(fields, t.checkout.config.PAYMENT_SECRET_KEY) } };
};

describe('POST /payments/notify body limit', () => {
  test('a 64 KiB body answers 413 and stores nothing (JSON and form)', async () => {
    const before = await stored();
    const big = 'x'.repeat(64 * 1024);
    const json = await post().set('content-type', 'application/json').send(JSON.stringify({ tranID: 'T-big', status: '00', note: big }));
    expect([json.status, json.body.code]).toEqual([413, 'payload_too_large']);
    const form = await post().type('form').send(`tranID=T-big&status=00&note=${big}`);
    expect([form.status, form.body.code]).toEqual([413, 'payload_too_large']);
    expect(await stored()).toBe(before);
  });

  test('a signed notification with every field at its longest and the extra fields the gateway adds is still taken', async () => {
    const { order, fields } = await signedFields();
    const extras = { nbcb: '1', channel: 'fpx_mb2u', error_code: '', error_desc: 'e'.repeat(255), extraP: JSON.stringify({ token: 't'.repeat(200) }) };
    await post().type('form').send({ ...fields, ...extras }).expect(200);
    expect((await t.checkout.prisma.order.findUniqueOrThrow({ where: { id: order.orderId } })).status).toBe('paid');
    const [row] = await t.checkout.prisma.paymentNotification.findMany({ where: { transactionId: fields.tranID } });
    expect(row).toMatchObject({ verified: true, payload: { ...fields, ...extras } });
  });
});

describe('an unverified notification', () => {
  test('keeps only the known fields, each bounded; the order stays unpaid', async () => {
    const { order, fields } = await signedFields();
    const forged = { ...fields, skey: '0'.repeat(32), tranID: `F-${randomUUID()}`, padding: 'p'.repeat(4000), paydate: 'd'.repeat(1000) };
    const res = await post().type('form').send(forged);
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']); // paydate over 40 characters
    const wrongKey = { ...fields, skey: 'f'.repeat(32), tranID: `F-${randomUUID()}`, padding: 'p'.repeat(4000) };
    expect((await post().type('form').send(wrongKey)).body.code).toBe('invalid_signature');

    const rows = await t.checkout.prisma.paymentNotification.findMany({ where: { transactionId: { in: [forged.tranID, wrongKey.tranID] } } });
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.verified).toBe(false);
      const payload = row.payload as Record<string, string>;
      expect(Object.keys(payload).sort()).toEqual(['amount', 'appcode', 'currency', 'domain', 'orderid', 'paydate', 'skey', 'status', 'tranID']);
      expect(payload.padding).toBeUndefined();
      expect(JSON.stringify(payload).length).toBeLessThan(1000);
    }
    expect((await t.checkout.prisma.order.findUniqueOrThrow({ where: { id: order.orderId } })).status).toBe('pending_payment');
  });
});

describe('pruning payment notifications', () => {
  test('deletes unverified rows past their retention and verified ones past theirs, keeps the rest', async () => {
    const day = 24 * 3_600_000;
    const now = new Date();
    const ago = (days: number) => new Date(now.getTime() - days * day);
    const rows = [
      { tag: 'unverified-old', verified: false, receivedAt: ago(8) },
      { tag: 'unverified-new', verified: false, receivedAt: ago(6) },
      { tag: 'verified-mid', verified: true, receivedAt: ago(8) },
      { tag: 'verified-old', verified: true, receivedAt: ago(401) },
    ];
    const run = randomUUID();
    await t.checkout.prisma.paymentNotification.createMany({
      data: rows.map((row) => ({ transactionId: `${run}-${row.tag}`, status: '00', verified: row.verified, payload: {}, receivedAt: row.receivedAt })),
    });
    const deleted = await prunePaymentNotifications(t.checkout.prisma, { verifiedMs: 400 * day, unverifiedMs: 7 * day }, now);
    expect(deleted).toBeGreaterThanOrEqual(2);
    const left = await t.checkout.prisma.paymentNotification.findMany({ where: { transactionId: { startsWith: run } } });
    expect(left.map((row) => row.transactionId.slice(run.length + 1)).sort()).toEqual(['unverified-new', 'verified-mid']);
  });

  test('the worker prunes at its start and counts its round', async () => {
    const day = 24 * 3_600_000;
    const run = randomUUID();
    await t.checkout.prisma.paymentNotification.create({ data: { transactionId: `${run}-old`, status: '00', verified: false, payload: {}, receivedAt: new Date(Date.now() - 8 * day) } });
    const worker = startNotificationPruning(t.checkout.prisma, { verifiedMs: 400 * day, unverifiedMs: 7 * day, intervalMs: 60_000, log: silentLog });
    try {
      await waitFor(() => worker.rounds.ok >= 1, 10_000, 20);
      expect(worker.name).toBe('payment-notification-pruning');
      expect(await t.checkout.prisma.paymentNotification.count({ where: { transactionId: { startsWith: run } } })).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
