import { randomUUID } from 'node:crypto';
import { paymentUrlResponse } from '@pasar/contracts';
import { listenForRelayWakeUps, signedHeaders, silentLog, waitFor } from '@pasar/testkit';
import request from 'supertest';
import { useTestCheckout } from '../../test/checkout';
import { expireDueOrders } from '../lifecycle/expiry';
import { seedCustomerReplica, seedPendingOrder, type PendingOrderOptions, type SeededOrder } from '../lifecycle/test-fixtures';
import { notificationSkey, paymentVcode, type SignedNotificationFields } from './rules';

const t = useTestCheckout();

const http = () => request(t.checkout.url);
const asCustomer = (userId: string, email = 'buyer@example.test') => signedHeaders({ userId, role: 'customer', email });
const prisma = () => t.checkout.prisma;

/** A pending order of 2 × 25.50 with a 5.00 voucher and 200 redeemed points: total 48.50 (shipping 4.50), 44 points on payment. */
const seedOrder = (options: PendingOrderOptions = {}) => seedPendingOrder(prisma(), { voucherDiscount: '5.00', pointsRedeemed: 200, ...options });

const initiate = (orderId: string, userId: string) => http().post(`/api/v1/checkout/payment/initiate/${orderId}`).set(asCustomer(userId));
const retry = (orderId: string, userId: string) => http().post(`/api/v1/checkout/payment/retry/${orderId}`).set(asCustomer(userId));

/** A notification as the payment gateway signs it for this order. */
type SignedNotification = SignedNotificationFields & { skey: string };

function notification(order: SeededOrder, overrides: Partial<SignedNotificationFields> = {}): SignedNotification {
  const { config } = t.checkout;
  const fields: SignedNotificationFields = {
    tranID: `T${Date.now()}${Math.floor(Math.random() * 1000)}`,
    orderid: order.shortId,
    status: '00',
    domain: config.PAYMENT_MERCHANT_ID,
    amount: order.total,
    currency: 'MYR',
    paydate: '2026-03-01 10:15:00',
    appcode: 'A123456',
    ...overrides,
  };
  return { ...fields, skey: notificationSkey(fields, config.PAYMENT_SECRET_KEY) };
}

const notify = (body: Partial<SignedNotification>, as: 'form' | 'json' = 'form') =>
  http().post('/api/v1/payments/notify').set(signedHeaders(null)).type(as).send(body);

interface OutboxPayload {
  data: { orderId?: string; vars?: { shortId?: string } };
}

/** The outbox rows of one type that concern the order (by orderId, or the e-mail's shortId). */
async function eventsFor(type: string, order: SeededOrder): Promise<OutboxPayload['data'][]> {
  const rows = await prisma().outbox.findMany({ where: { type }, orderBy: { seq: 'asc' } });
  return rows
    .map((row) => (row.payload as unknown as OutboxPayload).data)
    .filter((data) => data.orderId === order.orderId || data.vars?.shortId === order.shortId);
}

/** What a payment may change, to compare before and after. */
async function stateOf(order: SeededOrder) {
  const [row, payment, subOrders, loyalty, earns, outbox] = await Promise.all([
    prisma().order.findUniqueOrThrow({ where: { id: order.orderId } }),
    prisma().payment.findUniqueOrThrow({ where: { orderId: order.orderId } }),
    prisma().subOrder.findMany({ where: { orderId: order.orderId }, orderBy: { createdAt: 'asc' } }),
    prisma().loyaltyAccount.findUnique({ where: { customerId: order.customerId } }),
    prisma().loyaltyTransaction.count({ where: { orderId: order.orderId, type: 'earn' } }),
    Promise.all(['checkout.order.paid', 'checkout.order.status_changed', 'notify.email.requested'].map((type) => eventsFor(type, order))),
  ]);
  return {
    status: row.status,
    paidAt: row.paidAt,
    pointsEarned: row.pointsEarned,
    payment: { status: payment.status, transactionId: payment.transactionId, attempts: payment.attempts },
    subOrders: subOrders.map((s) => s.status),
    balance: loyalty?.balance ?? 0,
    earns,
    events: outbox.map((list) => list.length),
  };
}

const recordsOf = (transactionId: string) => prisma().paymentNotification.findMany({ where: { transactionId }, orderBy: { receivedAt: 'asc' } });

describe('POST /checkout/payment/initiate/{id} and /retry/{id}', () => {
  test('answer the hosted page URL signed with vcode and count the attempt', async () => {
    const order = await seedOrder();
    await seedCustomerReplica(prisma(), order.customerId, 'siti@example.test', 'Siti Aminah');
    const res = await initiate(order.orderId, order.customerId).expect(200);
    const { paymentUrl } = paymentUrlResponse.parse(res.body);
    const { config } = t.checkout;
    const url = new URL(paymentUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${config.PAYMENT_PAGE_URL}/${config.PAYMENT_MERCHANT_ID}/`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      amount: '48.50',
      orderid: order.shortId,
      bill_name: 'Siti Aminah',
      bill_email: 'siti@example.test',
      bill_desc: `Pasar order ${order.shortId}`,
      returnurl: config.PAYMENT_RETURN_URL,
      callbackurl: config.PAYMENT_CALLBACK_URL,
      vcode: paymentVcode('48.50', config.PAYMENT_MERCHANT_ID, order.shortId, config.PAYMENT_VERIFY_KEY),
    });
    const after = await stateOf(order);
    expect(after).toMatchObject({ status: 'pending_payment', payment: { status: 'pending', attempts: 1 } });

    const again = await retry(order.orderId, order.customerId).expect(200);
    expect(paymentUrlResponse.parse(again.body).paymentUrl).toContain(`orderid=${order.shortId}`);
    expect((await stateOf(order)).payment.attempts).toBe(2);
  });

  test('bill the shipping name and the caller’s e-mail while the customer has no replica', async () => {
    const order = await seedOrder();
    const res = await http().post(`/api/v1/checkout/payment/initiate/${order.orderId}`).set(asCustomer(order.customerId, 'nur@example.test')).expect(200);
    const params = new URL(paymentUrlResponse.parse(res.body).paymentUrl).searchParams;
    expect([params.get('bill_name'), params.get('bill_email')]).toEqual(['Siti Aminah', 'nur@example.test']);
  });

  test.each(['initiate', 'retry'])('%s: 401 without a session, 403 for a vendor or admin, 404 for another customer’s or an unknown order, 400 for a bad id', async (action) => {
    const order = await seedOrder();
    const path = (id: string) => `/api/v1/checkout/payment/${action}/${id}`;
    await http().post(path(order.orderId)).set(signedHeaders(null)).expect(401);
    expect((await http().post(path(order.orderId)).set(signedHeaders({ role: 'vendor' })).expect(403)).body.code).toBe('forbidden');
    await http().post(path(order.orderId)).set(signedHeaders({ role: 'admin' })).expect(403);
    await http().post(path(order.orderId)).set(asCustomer(randomUUID())).expect(404);
    await http().post(path(randomUUID())).set(asCustomer(order.customerId)).expect(404);
    expect((await http().post(path('not-a-uuid')).set(asCustomer(order.customerId)).expect(400)).body.code).toBe('validation_failed');
    expect((await stateOf(order)).payment.attempts).toBe(0);
  });

  test.each(['initiate', 'retry'])('%s: 409 order_not_payable for a paid order', async (action) => {
    const order = await seedOrder();
    await notify(notification(order)).expect(200);
    const res = await http().post(`/api/v1/checkout/payment/${action}/${order.orderId}`).set(asCustomer(order.customerId)).expect(409);
    expect(res.body).toMatchObject({ status: 409, code: 'order_not_payable' });
  });

  test.each(['initiate', 'retry'])('%s: 409 order_not_payable once expires_at has passed, swept or not', async (action) => {
    const due = await seedOrder({ expiresAt: new Date(Date.now() - 1000) });
    const res = await http().post(`/api/v1/checkout/payment/${action}/${due.orderId}`).set(asCustomer(due.customerId)).expect(409);
    expect(res.body.code).toBe('order_not_payable');
    await expireDueOrders({ prisma: prisma(), log: silentLog });
    expect((await stateOf(due)).status).toBe('expired');
    await http().post(`/api/v1/checkout/payment/${action}/${due.orderId}`).set(asCustomer(due.customerId)).expect(409);
    expect((await stateOf(due)).payment.attempts).toBe(0);
  });
});

describe('PAYMENT_MOCK outside production', () => {
  // The running service reads its config object; flipping the switch is what a restart with PAYMENT_MOCK=true does.
  beforeAll(() => {
    t.checkout.config.PAYMENT_MOCK = true;
  });
  afterAll(() => {
    t.checkout.config.PAYMENT_MOCK = false;
  });

  test('initiate marks the order paid itself and answers the return path', async () => {
    const order = await seedOrder({ pointsBalance: 10 });
    await seedCustomerReplica(prisma(), order.customerId);
    const res = await initiate(order.orderId, order.customerId).expect(200);
    expect(res.body).toEqual({ paymentUrl: `/payment/return?status=success&orderId=${order.orderId}` });
    const state = await stateOf(order);
    expect(state).toMatchObject({ status: 'paid', pointsEarned: 44, balance: 54, earns: 1, subOrders: ['paid'], events: [1, 1, 1] });
    expect(state.payment).toMatchObject({ status: 'paid', attempts: 1 });
    expect(state.payment.transactionId).toMatch(/^mock-/);
    await initiate(order.orderId, order.customerId).expect(409);
    await retry(order.orderId, order.customerId).expect(409);
    expect((await stateOf(order)).earns).toBe(1);
  });

  test("the payment's events are handed to the relay after the commit: published without waking the relay", async () => {
    const wakeUps = await listenForRelayWakeUps(t.checkout.config.DATABASE_URL);
    try {
      const order = await seedOrder();
      await seedCustomerReplica(prisma(), order.customerId);
      await initiate(order.orderId, order.customerId).expect(200);
      const published = async () => {
        const rows = await prisma().outbox.findMany({ where: { type: { in: ['checkout.order.paid', 'checkout.order.status_changed'] }, payload: { path: ['data', 'orderId'], equals: order.orderId } } });
        return rows.length === 2 && rows.every((row) => row.publishedAt !== null);
      };
      await waitFor(published, 10000);
      expect(wakeUps.count()).toBe(0);
    } finally {
      await wakeUps.stop();
    }
  });

  test('is ignored in production: the hosted page URL is answered and nothing is paid', async () => {
    const order = await seedOrder();
    t.checkout.config.NODE_ENV = 'production';
    try {
      const res = await initiate(order.orderId, order.customerId).expect(200);
      expect(paymentUrlResponse.parse(res.body).paymentUrl).toMatch(/^https?:\/\/.*vcode=[0-9a-f]{32}/);
    } finally {
      t.checkout.config.NODE_ENV = 'test';
    }
    expect((await stateOf(order)).status).toBe('pending_payment');
  });
});

describe('POST /payments/notify', () => {
  test('a signed success (form) marks payment, order and sub-orders paid, earns points, emits order.paid and asks for the confirmation e-mail, in one go', async () => {
    const order = await seedOrder({ stores: 2, pointsBalance: 7 });
    await seedCustomerReplica(prisma(), order.customerId, 'siti@example.test', 'Siti Aminah');
    const body = notification(order);
    const res = await notify(body).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('OK');

    const state = await stateOf(order);
    // 2 × 51.00 less 5.00 voucher and 2.00 of points = 95 points
    expect(state).toMatchObject({ status: 'paid', pointsEarned: 95, balance: 102, earns: 1, subOrders: ['paid', 'paid'], events: [1, 1, 1] });
    expect(state.payment).toMatchObject({ status: 'paid', transactionId: body.tranID });
    expect(state.paidAt).toBeInstanceOf(Date);
    const [paid] = await eventsFor('checkout.order.paid', order);
    expect(paid).toEqual({
      orderId: order.orderId,
      shortId: order.shortId,
      customerId: order.customerId,
      isB2b: false,
      companyId: null,
      subOrderIds: order.subOrders.map((s) => s.id),
      total: order.total,
      paidAt: state.paidAt?.toISOString(),
    });
    expect(await eventsFor('checkout.order.status_changed', order)).toEqual([
      expect.objectContaining({ orderId: order.orderId, previousStatus: 'pending_payment', status: 'paid' }),
    ]);
    expect(await eventsFor('notify.email.requested', order)).toEqual([
      expect.objectContaining({ to: 'siti@example.test', template: 'order_confirmation', vars: { fullName: 'Siti Aminah', shortId: order.shortId, total: order.total } }),
    ]);
    const earn = await prisma().loyaltyTransaction.findFirstOrThrow({ where: { orderId: order.orderId, type: 'earn' } });
    expect(earn).toMatchObject({ customerId: order.customerId, points: 95 });
    expect(await recordsOf(body.tranID)).toEqual([expect.objectContaining({ orderId: order.orderId, status: '00', verified: true })]);
  });

  test("a B2B order's paid and status_changed events name its buying company", async () => {
    const companyId = randomUUID();
    const order = await seedOrder({ isB2b: true, companyId });
    await notify(notification(order)).expect(200);
    expect(await eventsFor('checkout.order.paid', order)).toEqual([expect.objectContaining({ orderId: order.orderId, isB2b: true, companyId })]);
    expect(await eventsFor('checkout.order.status_changed', order)).toEqual([expect.objectContaining({ orderId: order.orderId, isB2b: true, companyId, status: 'paid' })]);
  });

  test('takes JSON too, and the order id in place of the shortId', async () => {
    const order = await seedOrder();
    await notify(notification(order, { orderid: order.orderId }), 'json').expect(200);
    expect((await stateOf(order)).status).toBe('paid');
  });

  test('removes the family cart items listed in admin_notes, and only those', async () => {
    const family = await prisma().familyAccount.create({ data: { ownerId: randomUUID(), name: 'Family' } });
    const item = (productId: string) => prisma().familyCartItem.create({ data: { familyId: family.id, productId, quantity: 1, addedBy: family.ownerId } });
    const [bought, kept] = [await item(randomUUID()), await item(randomUUID())];
    const order = await seedOrder({ familyId: family.id, adminNotes: JSON.stringify({ familyCartItemIds: [bought.id] }) });
    await notify(notification(order)).expect(200);
    expect((await prisma().familyCartItem.findMany({ where: { familyId: family.id } })).map((i) => i.id)).toEqual([kept.id]);
  });

  test('pays an order whose customer has no user replica yet, without an e-mail request', async () => {
    const order = await seedOrder();
    await notify(notification(order)).expect(200);
    expect(await stateOf(order)).toMatchObject({ status: 'paid', events: [1, 1, 0] });
  });

  test('a bad signature answers 400 invalid_signature, is recorded unverified, and changes nothing else', async () => {
    const order = await seedOrder();
    const before = await stateOf(order);
    const forged = { ...notification(order), amount: '0.01' };
    const res = await notify(forged).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_signature' });
    expect(await stateOf(order)).toEqual(before);
    expect(await recordsOf(forged.tranID)).toEqual([expect.objectContaining({ orderId: order.orderId, verified: false })]);
  });

  test("a verified success's events are handed to the relay after the commit: published without waking the relay", async () => {
    const order = await seedOrder();
    await seedCustomerReplica(prisma(), order.customerId);
    const wakeUps = await listenForRelayWakeUps(t.checkout.config.DATABASE_URL);
    try {
      await notify(notification(order)).expect(200);
      const types = ['checkout.order.paid', 'checkout.order.status_changed', 'notify.email.requested'];
      const rows = async () => prisma().outbox.findMany({ where: { type: { in: types }, createdAt: { gte: new Date(Date.now() - 60_000) } } });
      await waitFor(async () => (await eventsFor('notify.email.requested', order)).length === 1 && (await rows()).every((row) => row.publishedAt !== null), 10000);
      expect(wakeUps.count()).toBe(0);
    } finally {
      await wakeUps.stop();
    }
  });

  test('a notification signed for another merchant id answers 400 invalid_signature', async () => {
    const order = await seedOrder();
    await notify(notification(order, { domain: 'someone_else' })).expect(400);
    expect((await stateOf(order)).status).toBe('pending_payment');
  });

  test('a replayed success answers 200 and earns the points once, also when the replays race', async () => {
    const order = await seedOrder();
    const body = notification(order);
    await notify(body).expect(200);
    const replays = await Promise.all([notify(body), notify(body, 'json'), notify(body), notify(body)]);
    expect(replays.map((r) => [r.status, r.text])).toEqual(replays.map(() => [200, 'OK']));
    expect(await stateOf(order)).toMatchObject({ status: 'paid', pointsEarned: 44, balance: 44, earns: 1, events: [1, 1, 0] });
    expect(await recordsOf(body.tranID)).toHaveLength(5);
  });

  test('concurrent first deliveries of one success pay the order once', async () => {
    const order = await seedOrder();
    const body = notification(order);
    const results = await Promise.all(Array.from({ length: 6 }, () => notify(body)));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    expect(await stateOf(order)).toMatchObject({ status: 'paid', earns: 1, balance: 44, events: [1, 1, 0] });
  });

  test('a second payment of a paid order (another tranID) answers 409 order_already_paid and changes nothing', async () => {
    const order = await seedOrder();
    await notify(notification(order)).expect(200);
    const before = await stateOf(order);
    const res = await notify(notification(order, { tranID: 'another-transaction' })).expect(409);
    expect(res.body.code).toBe('order_already_paid');
    expect(await stateOf(order)).toEqual(before);
  });

  test('a success for an expired order is recorded and answers 409 order_expired; the order stays expired', async () => {
    const order = await seedOrder({ expiresAt: new Date(Date.now() - 1000) });
    await expireDueOrders({ prisma: prisma(), log: silentLog });
    const before = await stateOf(order);
    expect(before).toMatchObject({ status: 'expired', payment: { status: 'expired' } });
    const body = notification(order);
    const res = await notify(body).expect(409);
    expect(res.body).toMatchObject({ status: 409, code: 'order_expired' });
    expect(await stateOf(order)).toEqual(before);
    expect(await recordsOf(body.tranID)).toEqual([expect.objectContaining({ orderId: order.orderId, status: '00', verified: true })]);
  });

  test('a success for an order past expires_at that the sweep has not expired yet is taken (its holdings are intact)', async () => {
    const order = await seedOrder({ expiresAt: new Date(Date.now() - 1000) });
    await notify(notification(order)).expect(200);
    expect(await stateOf(order)).toMatchObject({ status: 'paid', earns: 1 });
    await expireDueOrders({ prisma: prisma(), log: silentLog });
    expect((await stateOf(order)).status).toBe('paid');
  });

  test('an unknown order answers 404 and is recorded without an order', async () => {
    const ghost = { orderId: randomUUID(), shortId: 'PSR-UNKNOWN', total: '10.00' } as SeededOrder;
    const body = notification(ghost);
    expect((await notify(body).expect(404)).body.code).toBe('not_found');
    expect(await recordsOf(body.tranID)).toEqual([expect.objectContaining({ orderId: null, verified: true })]);
  });

  test.each([
    ['an amount other than the order total', { amount: '48.99' }],
    ['another currency', { currency: 'SGD' }],
  ])('%s answers 400 amount_mismatch and changes nothing', async (_case, overrides) => {
    const order = await seedOrder();
    const before = await stateOf(order);
    expect((await notify(notification(order, overrides)).expect(400)).body.code).toBe('amount_mismatch');
    expect(await stateOf(order)).toEqual(before);
  });

  test.each([
    ['failed', '11'],
    ['pending', '22'],
  ] as const)('a %s report is recorded, acknowledged, and leaves the order payable', async (_case, status) => {
    const order = await seedOrder();
    const before = await stateOf(order);
    const body = notification(order, { status });
    expect((await notify(body).expect(200)).text).toBe('OK');
    expect(await stateOf(order)).toEqual(before);
    expect(await recordsOf(body.tranID)).toEqual([expect.objectContaining({ status, verified: true })]);
    await retry(order.orderId, order.customerId).expect(200);
    await notify(notification(order)).expect(200);
    expect((await stateOf(order)).status).toBe('paid');
  });

  test('a malformed notification answers 400 validation_failed and is recorded unverified', async () => {
    const order = await seedOrder();
    const { skey: _skey, ...unsigned } = notification(order);
    const res = await notify(unsigned).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(await recordsOf(unsigned.tranID)).toEqual([expect.objectContaining({ orderId: null, verified: false })]);
    expect((await stateOf(order)).status).toBe('pending_payment');
  });
});
