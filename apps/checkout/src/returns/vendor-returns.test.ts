import { randomUUID } from 'node:crypto';
import { vendorReturnRequest, type ReturnStatus, type VendorReturnRequestJson } from '@pasar/contracts';
import request from 'supertest';
import { z } from 'zod';
import { addStore } from '../catalog/test-fixtures';
import type { StoreReplica } from '../generated/prisma/client';
import { signedAs, testRoleGate } from '../wishlist/test-fixtures';
import { useTestCheckout } from '../../test/checkout';
import { seedOrder, type LineSpec, type OrderSpec, type SeededOrder } from './test-fixtures';

const VENDOR_RETURNS = '/api/v1/vendor/returns';
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const t = useTestCheckout();

const http = () => request(t.checkout.url);
const asOwner = (store: StoreReplica) => signedAs('vendor', store.ownerUserId);

interface Scenario {
  store: StoreReplica;
  order: SeededOrder;
  returnId: string;
}

/**
 * A delivered order with lines of `store` (and one of another store), and a requested return of
 * the store's lines at `returned` (default all of them), opened through POST /account/returns.
 */
async function scenario(lines: Omit<LineSpec, 'storeId'>[] = [{}], options: Partial<OrderSpec> & { returned?: number[] } = {}): Promise<Scenario> {
  const store = await addStore(t);
  const order = await seedOrder(t.checkout.prisma, {
    customerId: randomUUID(),
    ...options,
    lines: [...lines.map((line) => ({ ...line, storeId: store.storeId })), { storeId: randomUUID() }],
  });
  const returned = options.returned ?? lines.map((_, i) => i);
  const res = await http()
    .post('/api/v1/account/returns')
    .set(signedAs('customer', order.customerId))
    .send({ orderId: order.orderId, reason: 'defective', items: returned.map((i) => ({ orderItemId: order.items[i].id, productName: 'x' })) })
    .expect(201);
  return { store, order, returnId: String(res.headers.location).split('/').pop() as string };
}

const step = (s: Scenario, action: string, body?: object) => http().post(`${VENDOR_RETURNS}/${s.returnId}/${action}`).set(asOwner(s.store)).send(body);

async function storeReturns(store: StoreReplica, query = ''): Promise<VendorReturnRequestJson[]> {
  const res = await http().get(`${VENDOR_RETURNS}${query}`).set(asOwner(store)).expect(200);
  return z.array(vendorReturnRequest.strict()).parse(res.body);
}

const stored = (id: string) => t.checkout.prisma.returnRequest.findUniqueOrThrow({ where: { id } });
const paymentOf = (orderId: string) => t.checkout.prisma.payment.findUniqueOrThrow({ where: { orderId } });
const pointsOf = (customerId: string) => t.checkout.prisma.loyaltyAccount.findUniqueOrThrow({ where: { customerId } });
const reversals = (orderId: string) => t.checkout.prisma.loyaltyTransaction.findMany({ where: { orderId, type: 'reversal' } });

async function moveTo(s: Scenario, status: ReturnStatus): Promise<void> {
  const path: Record<string, string[]> = { requested: [], approved: ['approve'], received: ['approve', 'receive'], refunded: ['approve', 'receive', 'refund'] };
  for (const action of path[status]) await step(s, action).expect(204);
}

describe('vendor returns auth', () => {
  const id = randomUUID();
  const endpoints = [
    ['get', VENDOR_RETURNS],
    ['post', `${VENDOR_RETURNS}/${id}/approve`],
    ['post', `${VENDOR_RETURNS}/${id}/reject`],
    ['post', `${VENDOR_RETURNS}/${id}/receive`],
    ['post', `${VENDOR_RETURNS}/${id}/refund`],
  ] as const;

  testRoleGate(t, 'vendor', endpoints, { reason: 'x' });

  test.each(endpoints)('%s %s: 403 no_store for a vendor without a store', async (method, path) => {
    const req = http()[method](path).set(signedAs('vendor'));
    // a body only where the method has one (a GET with a body is 400 body_not_allowed)
    expect((await (method === 'get' ? req : req.send({ reason: 'x' })).expect(403)).body.code).toBe('no_store');
  });

  test("another store's return is 404 for every step, and untouched", async () => {
    const s = await scenario();
    const intruder = await addStore(t);
    for (const action of ['approve', 'reject', 'receive', 'refund']) {
      const res = await http().post(`${VENDOR_RETURNS}/${s.returnId}/${action}`).set(asOwner(intruder)).send({ reason: 'no' }).expect(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await stored(s.returnId)).status).toBe('requested');
    expect(await storeReturns(intruder)).toEqual([]);
  });

  test('an unknown return is 404; an id that is not a uuid is 400', async () => {
    const store = await addStore(t);
    await http().post(`${VENDOR_RETURNS}/${randomUUID()}/approve`).set(asOwner(store)).expect(404);
    expect((await http().post(`${VENDOR_RETURNS}/abc/approve`).set(asOwner(store)).expect(400)).body.code).toBe('validation_failed');
  });
});

describe('GET /vendor/returns', () => {
  test("the store's returns, newest first, with sub-order, store, customer and refund amount; ?status filters", async () => {
    const first = await scenario([{ productName: 'Kopi' }]);
    const order = await seedOrder(t.checkout.prisma, { customerId: randomUUID(), lines: [{ storeId: first.store.storeId, productName: 'Teh' }] });
    await http()
      .post('/api/v1/account/returns')
      .set(signedAs('customer', order.customerId))
      .send({ orderId: order.orderId, reason: 'other', comment: 'too sweet', items: [{ orderItemId: order.items[0].id, productName: 'Teh' }] })
      .expect(201);
    await step(first, 'approve').expect(204);

    const all = await storeReturns(first.store);
    expect(all.map((r) => r.order_id)).toEqual([order.orderId, first.order.orderId]);
    expect(all[1]).toEqual({
      id: first.returnId,
      order_id: first.order.orderId,
      status: 'approved',
      reason: 'defective',
      comment: null,
      created_at: ISO,
      order_created_at: ISO,
      items: [{ orderItemId: first.order.items[0].id, productName: 'Kopi' }],
      evidence_paths: [],
      rejection_reason: null,
      vendor_reviewed_at: ISO,
      received_at: null,
      refunded_at: null,
      sub_order_id: first.order.items[0].subOrderId,
      store_id: first.store.storeId,
      customer_id: first.order.customerId,
      refund_amount: null,
    });
    expect((await storeReturns(first.store, '?status=approved')).map((r) => r.id)).toEqual([first.returnId]);
    expect((await storeReturns(first.store, '?status=requested')).map((r) => r.order_id)).toEqual([order.orderId]);
    expect(await storeReturns(first.store, '?status=refunded')).toEqual([]);
  });

  test('400 for an unknown status', async () => {
    const store = await addStore(t);
    expect((await http().get(`${VENDOR_RETURNS}?status=lost`).set(asOwner(store)).expect(400)).body.code).toBe('validation_failed');
  });
});

describe('approve, reject, receive', () => {
  test('approve: requested → approved with vendor_reviewed_at; again → 409 invalid_status', async () => {
    const s = await scenario();
    await step(s, 'approve').expect(204);
    const approved = await stored(s.returnId);
    expect(approved.status).toBe('approved');
    expect(approved.vendorReviewedAt).toBeInstanceOf(Date);
    expect((await step(s, 'approve').expect(409)).body.code).toBe('invalid_status');
    expect((await step(s, 'reject', { reason: 'late' }).expect(409)).body.code).toBe('invalid_status');
  });

  test('reject: requested → rejected with the reason; the items can be returned again', async () => {
    const s = await scenario();
    await step(s, 'reject', { reason: '  Seal broken by the customer ' }).expect(204);
    expect(await stored(s.returnId)).toMatchObject({ status: 'rejected', rejectionReason: 'Seal broken by the customer', vendorReviewedAt: expect.any(Date) });
    const customer = await http().get('/api/v1/account/returns').set(signedAs('customer', s.order.customerId)).expect(200);
    expect(customer.body[0]).toMatchObject({ status: 'rejected', rejection_reason: 'Seal broken by the customer', vendor_reviewed_at: ISO });

    await http()
      .post('/api/v1/account/returns')
      .set(signedAs('customer', s.order.customerId))
      .send({ orderId: s.order.orderId, reason: 'other', items: [{ orderItemId: s.order.items[0].id, productName: 'x' }] })
      .expect(201);
    expect((await step(s, 'receive').expect(409)).body.code).toBe('invalid_status');
  });

  test.each([
    ['no reason', {}],
    ['an empty reason', { reason: '  ' }],
    ['a reason over 1000 characters', { reason: 'x'.repeat(1001) }],
  ])('reject: 400 for %s; the return stays requested', async (_label, body) => {
    const s = await scenario();
    expect((await step(s, 'reject', body).expect(400)).body.code).toBe('validation_failed');
    expect((await stored(s.returnId)).status).toBe('requested');
  });

  test('receive: only an approved return (409 before), then received_at', async () => {
    const s = await scenario();
    expect((await step(s, 'receive').expect(409)).body.code).toBe('invalid_status');
    await step(s, 'approve').expect(204);
    await step(s, 'receive').expect(204);
    expect(await stored(s.returnId)).toMatchObject({ status: 'received', receivedAt: expect.any(Date) });
    expect((await step(s, 'receive').expect(409)).body.code).toBe('invalid_status');
  });

  test('concurrent approve and reject: exactly one wins', async () => {
    const s = await scenario();
    const statuses = await Promise.all([step(s, 'approve'), step(s, 'reject', { reason: 'no' }), step(s, 'approve')].map(async (r) => (await r).status));
    expect(statuses.filter((code) => code === 204)).toHaveLength(1);
    expect(statuses.filter((code) => code === 409)).toHaveLength(2);
  });
});

describe('POST /vendor/returns/{id}/refund', () => {
  test("only a received return (409 before); adds the lines' paid value (not shipping, not other lines) to refunded_amount and reverses their points", async () => {
    // lines of the store: 2 × 20.00 less 4.00 discount = 36.00 paid, 15.50 paid (not returned); the other store: 20.00
    const s = await scenario([{ unitPrice: '20.00', quantity: 2, discount: '4.00' }, { unitPrice: '15.50' }], { returned: [0] });
    expect(s.order.pointsEarned).toBe(71);
    expect((await step(s, 'refund').expect(409)).body.code).toBe('invalid_status');
    await step(s, 'approve').expect(204);
    expect((await step(s, 'refund').expect(409)).body.code).toBe('invalid_status');
    await step(s, 'receive').expect(204);
    await step(s, 'refund').expect(204);

    expect(await stored(s.returnId)).toMatchObject({ status: 'refunded', refundedAt: expect.any(Date) });
    expect((await paymentOf(s.order.orderId)).refundedAmount.toFixed(2)).toBe('36.00');
    // 36.00 of 71.50 paid earned floor(36 × 71 / 71.5) = 35 of the 71 points
    expect(await pointsOf(s.order.customerId)).toMatchObject({ balance: 36, totalEarned: 36 });
    expect((await reversals(s.order.orderId)).map((r) => r.points)).toEqual([-35]);
    const [listed] = await storeReturns(s.store, '?status=refunded');
    expect(listed).toMatchObject({ refund_amount: '36.00', refunded_at: ISO, received_at: ISO, vendor_reviewed_at: ISO });
  });

  test('a second refund answers 409 and changes nothing', async () => {
    const s = await scenario();
    await moveTo(s, 'refunded');
    const payment = await paymentOf(s.order.orderId);
    expect((await step(s, 'refund').expect(409)).body.code).toBe('invalid_status');
    expect((await paymentOf(s.order.orderId)).refundedAmount.toFixed(2)).toBe(payment.refundedAmount.toFixed(2));
    expect(await reversals(s.order.orderId)).toHaveLength(1);
  });

  test('concurrent refunds: one 204, the rest 409; refunded and reversed once', async () => {
    const s = await scenario([{ unitPrice: '30.00' }]);
    await moveTo(s, 'received');
    const statuses = await Promise.all(Array.from({ length: 5 }, async () => (await step(s, 'refund')).status));
    expect(statuses.sort()).toEqual([204, 409, 409, 409, 409]);
    expect((await paymentOf(s.order.orderId)).refundedAmount.toFixed(2)).toBe('30.00');
    expect((await reversals(s.order.orderId)).map((r) => r.points)).toEqual([-30]);
  });

  test("the refund is clamped to what the payment has left; refund_amount records what was added", async () => {
    // paid: 20.00 + 20.00 (other store) + 2 × 5.00 shipping = 50.00; 40.00 already refunded
    const s = await scenario([{}], { refundedAmount: '40.00' });
    await moveTo(s, 'refunded');
    const payment = await paymentOf(s.order.orderId);
    expect(payment.refundedAmount.toFixed(2)).toBe(payment.amount.toFixed(2));
    expect(payment.amount.toFixed(2)).toBe('50.00');
    expect((await stored(s.returnId)).refundAmount?.toFixed(2)).toBe('10.00');
  });

  test('points never go below zero: a customer who spent them loses what is left', async () => {
    const s = await scenario([{ unitPrice: '30.00' }], { pointsBalance: 12 });
    await moveTo(s, 'refunded');
    expect((await pointsOf(s.order.customerId)).balance).toBe(0);
    expect((await reversals(s.order.orderId)).map((r) => r.points)).toEqual([-12]);
  });

  test('returns of one order refunded in turn take back exactly the points earned on those lines', async () => {
    const store = await addStore(t);
    const order = await seedOrder(t.checkout.prisma, {
      customerId: randomUUID(),
      lines: [{ storeId: store.storeId, unitPrice: '10.10' }, { storeId: store.storeId, unitPrice: '10.10' }, { storeId: store.storeId, unitPrice: '10.10' }],
    });
    expect(order.pointsEarned).toBe(30);
    for (const item of order.items) {
      const res = await http()
        .post('/api/v1/account/returns')
        .set(signedAs('customer', order.customerId))
        .send({ orderId: order.orderId, reason: 'damaged', items: [{ orderItemId: item.id, productName: 'x' }] })
        .expect(201);
      await moveTo({ store, order, returnId: String(res.headers.location).split('/').pop() as string }, 'refunded');
    }
    expect((await reversals(order.orderId)).map((r) => r.points).reduce((a, b) => a + b, 0)).toBe(-30);
    expect((await paymentOf(order.orderId)).refundedAmount.toFixed(2)).toBe('30.30');
  });
});
