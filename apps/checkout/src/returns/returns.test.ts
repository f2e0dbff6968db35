import { randomUUID } from 'node:crypto';
import { MAX_EVIDENCE_PATHS, MAX_EVIDENCE_PATH_LENGTH, returnRequest, type ReturnRequestJson } from '@pasar/contracts';
import request from 'supertest';
import { z } from 'zod';
import { signedAs, testRoleGate } from '../wishlist/test-fixtures';
import { useTestCheckout } from '../../test/checkout';
import { seedOrder, type SeededOrder } from './test-fixtures';

const RETURNS = '/api/v1/account/returns';
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const t = useTestCheckout();

const http = () => request(t.checkout.url);
const asCustomer = (customerId: string) => signedAs('customer', customerId);

/** A delivered order of the customer: two lines of one store, one line of another. */
function deliveredOrder(customerId: string = randomUUID(), status?: 'delivered' | 'shipped'): Promise<SeededOrder> {
  const storeA = randomUUID();
  const storeB = randomUUID();
  return seedOrder(t.checkout.prisma, {
    customerId,
    status,
    lines: [
      { storeId: storeA, productName: 'Kopi Tenom' },
      { storeId: storeA, productName: 'Teh Sabah' },
      { storeId: storeB, productName: 'Batik Scarf' },
    ],
  });
}

function returnBody(order: SeededOrder, itemIndexes: number[] = [0], overrides: Record<string, unknown> = {}) {
  return {
    orderId: order.orderId,
    reason: 'wrong_item',
    items: itemIndexes.map((i) => ({ orderItemId: order.items[i].id, productName: order.items[i].productName })),
    ...overrides,
  };
}

const postReturn = (customerId: string, body: Record<string, unknown>) => http().post(RETURNS).set(asCustomer(customerId)).send(body);

async function returnsOf(customerId: string): Promise<ReturnRequestJson[]> {
  const res = await http().get(RETURNS).set(asCustomer(customerId)).expect(200);
  return z.array(returnRequest.strict()).parse(res.body);
}

const returnCount = (orderId: string) => t.checkout.prisma.returnRequest.count({ where: { orderId } });

describe('returns auth', () => {
  testRoleGate(t, 'customer', [['get', RETURNS], ['post', RETURNS], ['get', `${RETURNS}/${randomUUID()}`]], { orderId: randomUUID() });
});

describe('POST /account/returns', () => {
  test('201 with an empty body and a Location; the return is requested with the order items and the evidence', async () => {
    const order = await deliveredOrder();
    const res = await postReturn(
      order.customerId,
      returnBody(order, [0, 1], {
        reason: 'damaged',
        comment: '  The lid was cracked  ',
        evidencePaths: ['returns/photo-1.jpg', 'returns/photo-2.jpg'],
        items: [
          { orderItemId: order.items[0].id, productName: 'whatever the client says' },
          { orderItemId: order.items[1].id, productName: 'Teh Sabah' },
        ],
      }),
    ).expect(201);
    expect(res.text).toBe('');
    const match = /^\/api\/v1\/account\/returns\/([0-9a-f-]{36})$/.exec(res.headers.location ?? '');
    expect(match).not.toBeNull();
    const id = (match as RegExpExecArray)[1];

    const dbOrder = await t.checkout.prisma.order.findUniqueOrThrow({ where: { id: order.orderId } });
    const expected = {
      id,
      order_id: order.orderId,
      status: 'requested',
      reason: 'damaged',
      comment: 'The lid was cracked',
      created_at: ISO,
      order_created_at: dbOrder.createdAt.toISOString(),
      items: [
        { orderItemId: order.items[0].id, productName: 'Kopi Tenom' },
        { orderItemId: order.items[1].id, productName: 'Teh Sabah' },
      ],
      evidence_paths: ['returns/photo-1.jpg', 'returns/photo-2.jpg'],
      rejection_reason: null,
      vendor_reviewed_at: null,
      received_at: null,
      refunded_at: null,
    };
    expect(await returnsOf(order.customerId)).toEqual([expected]);
    const one = await http().get(`${RETURNS}/${id}`).set(asCustomer(order.customerId)).expect(200);
    expect(returnRequest.strict().parse(one.body)).toEqual(expected);

    const stored = await t.checkout.prisma.returnRequest.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({ storeId: order.items[0].storeId, subOrderId: order.items[0].subOrderId, customerId: order.customerId });
  });

  test('writes checkout.return.requested with the return, for the store: ids, reason, items and amounts; no customer data', async () => {
    const order = await deliveredOrder();
    const res = await postReturn(order.customerId, returnBody(order, [0, 1], { reason: 'damaged', comment: 'cracked' })).expect(201);
    const id = (res.headers.location ?? '').split('/').pop();
    const events = await t.checkout.prisma.outbox.findMany({ where: { type: 'checkout.return.requested', payload: { path: ['data', 'returnId'], equals: id } } });
    expect(events).toHaveLength(1);
    // ordered with the order's own events (the relay holds it behind a failed one of them)
    expect(events[0].aggregate).toBe(`order:${order.orderId}`);
    const payload = events[0].payload as { data: Record<string, unknown> };
    const stored = await t.checkout.prisma.returnRequest.findUniqueOrThrow({ where: { id } });
    const items = await t.checkout.prisma.orderItem.findMany({ where: { id: { in: [order.items[0].id, order.items[1].id] } }, orderBy: { createdAt: 'asc' } });
    expect(payload.data).toEqual({
      returnId: id,
      orderId: order.orderId,
      subOrderId: order.items[0].subOrderId,
      storeId: order.items[0].storeId,
      reason: 'damaged',
      comment: 'cracked',
      items: expect.arrayContaining(
        items.map((item) => ({
          orderItemId: item.id,
          productId: item.productId,
          variantId: item.variantId,
          productName: item.productName,
          variantName: item.variantName,
          quantity: item.quantity,
          unitPrice: item.unitPrice.toFixed(2),
          lineTotal: item.lineTotal.toFixed(2),
        })),
      ),
      amount: items.reduce((sum, item) => sum + Number(item.lineTotal), 0).toFixed(2),
      requestedAt: stored.createdAt.toISOString(),
    });
    expect((payload.data.items as unknown[]).length).toBe(2);
    expect(JSON.stringify(payload)).not.toContain(order.customerId);
  });

  test('a refused return writes no event', async () => {
    const order = await deliveredOrder();
    await postReturn(order.customerId, returnBody(order, [0, 2])).expect(400);
    expect(await t.checkout.prisma.outbox.count({ where: { type: 'checkout.return.requested', payload: { path: ['data', 'orderId'], equals: order.orderId } } })).toBe(0);
  });

  test('comment and evidence are optional (null and [])', async () => {
    const order = await deliveredOrder();
    await postReturn(order.customerId, returnBody(order, [2], { reason: 'changed_mind', comment: '' })).expect(201);
    const [created] = await returnsOf(order.customerId);
    expect(created).toMatchObject({ reason: 'changed_mind', comment: null, evidence_paths: [] });
  });

  test("404 for another customer's order or an unknown one; nothing written", async () => {
    const order = await deliveredOrder();
    const stranger = randomUUID();
    expect((await postReturn(stranger, returnBody(order)).expect(404)).body.code).toBe('not_found');
    expect((await postReturn(order.customerId, returnBody(order, [0], { orderId: randomUUID() })).expect(404)).body.code).toBe('not_found');
    expect(await returnCount(order.orderId)).toBe(0);
  });

  test('400 order_not_delivered for an order that is not delivered', async () => {
    const order = await deliveredOrder(randomUUID(), 'shipped');
    const res = await postReturn(order.customerId, returnBody(order)).expect(400);
    expect(res.body.code).toBe('order_not_delivered');
    expect(await returnCount(order.orderId)).toBe(0);
  });

  test('400 multiple_stores for items of two stores (SPEC); nothing written', async () => {
    const order = await deliveredOrder();
    const res = await postReturn(order.customerId, returnBody(order, [0, 2])).expect(400);
    expect(res.body.code).toBe('multiple_stores');
    expect(await returnCount(order.orderId)).toBe(0);
  });

  test("400 item_not_in_order for an item of another order (even the caller's own)", async () => {
    const order = await deliveredOrder();
    const another = await deliveredOrder(order.customerId);
    const body = returnBody(order, [0], { items: [{ orderItemId: another.items[0].id, productName: 'x' }] });
    expect((await postReturn(order.customerId, body).expect(400)).body.code).toBe('item_not_in_order');
    const unknown = returnBody(order, [0], { items: [{ orderItemId: order.items[0].id, productName: 'x' }, { orderItemId: randomUUID(), productName: 'y' }] });
    expect((await postReturn(order.customerId, unknown).expect(400)).body.code).toBe('item_not_in_order');
    expect(await returnCount(order.orderId)).toBe(0);
  });

  test('400 item_not_delivered for an item of a cancelled sub-order of a delivered order', async () => {
    const customerId = randomUUID();
    const kept = randomUUID();
    const cancelled = randomUUID();
    const order = await seedOrder(t.checkout.prisma, { customerId, lines: [{ storeId: kept }, { storeId: cancelled }], cancelledStores: [cancelled] });
    expect((await postReturn(customerId, returnBody(order, [1])).expect(400)).body.code).toBe('item_not_delivered');
    await postReturn(customerId, returnBody(order, [0])).expect(201);
  });

  test('409 return_exists while another return holds an item; a rejected return frees it', async () => {
    const order = await deliveredOrder();
    await postReturn(order.customerId, returnBody(order, [0])).expect(201);
    const res = await postReturn(order.customerId, returnBody(order, [1, 0])).expect(409);
    expect(res.body.code).toBe('return_exists');
    await postReturn(order.customerId, returnBody(order, [1])).expect(201);

    const [holder] = await t.checkout.prisma.returnRequest.findMany({ where: { orderId: order.orderId, items: { some: { orderItemId: order.items[0].id } } } });
    await t.checkout.prisma.$transaction([
      t.checkout.prisma.returnRequest.update({ where: { id: holder.id }, data: { status: 'rejected', rejectionReason: 'used', vendorReviewedAt: new Date() } }),
      t.checkout.prisma.returnItem.updateMany({ where: { returnId: holder.id }, data: { active: false } }),
    ]);
    await postReturn(order.customerId, returnBody(order, [0])).expect(201);
    expect(await returnCount(order.orderId)).toBe(3);
  });

  test('the database keeps one active return per order item (partial unique index return_item_one_active)', async () => {
    const order = await deliveredOrder();
    const res = await postReturn(order.customerId, returnBody(order, [0])).expect(201);
    const returnId = String(res.headers.location).split('/').pop() as string;
    const { prisma } = t.checkout;
    const second = await prisma.returnRequest.create({
      data: { orderId: order.orderId, subOrderId: order.items[0].subOrderId, customerId: order.customerId, storeId: order.items[0].storeId, reason: 'other' },
    });
    await expect(prisma.returnItem.create({ data: { returnId: second.id, orderItemId: order.items[0].id, productName: 'x' } })).rejects.toThrow();
    await prisma.returnItem.updateMany({ where: { returnId }, data: { active: false } });
    await prisma.returnItem.create({ data: { returnId: second.id, orderItemId: order.items[0].id, productName: 'x' } });
  });

  test('concurrent returns of one item: one is created, the others answer 409', async () => {
    const order = await deliveredOrder();
    const statuses = await Promise.all(Array.from({ length: 4 }, async () => (await postReturn(order.customerId, returnBody(order, [0]))).status));
    expect(statuses.sort()).toEqual([201, 409, 409, 409]);
    expect(await returnCount(order.orderId)).toBe(1);
  });

  test.each([
    ['no orderId', { orderId: undefined }],
    ['an orderId that is not a uuid', { orderId: 'abc' }],
    ['an unknown reason', { reason: 'too_expensive' }],
    ['no items', { items: [] }],
    ['an item without productName', { items: [{ orderItemId: randomUUID() }] }],
    ['an item id that is not a uuid', { items: [{ orderItemId: '1', productName: 'x' }] }],
    ['the same item twice', { items: [{ orderItemId: '6a3c3c57-9a7e-4d5f-8f1e-0c1d2e3f4a5b', productName: 'x' }, { orderItemId: '6a3c3c57-9a7e-4d5f-8f1e-0c1d2e3f4a5b', productName: 'x' }] }],
    [`more than ${MAX_EVIDENCE_PATHS} evidence paths`, { evidencePaths: Array.from({ length: MAX_EVIDENCE_PATHS + 1 }, (_, i) => `e/${i}.jpg`) }],
    [`an evidence path over ${MAX_EVIDENCE_PATH_LENGTH} characters`, { evidencePaths: ['e/'.padEnd(MAX_EVIDENCE_PATH_LENGTH + 1, 'x')] }],
    ['an evidence path that is not a string', { evidencePaths: [42] }],
    ['a comment over 2000 characters', { comment: 'x'.repeat(2001) }],
    ['an unknown field', { refund: '10.00' }],
  ])('400 validation_failed for %s; nothing written', async (_label, overrides) => {
    const order = await deliveredOrder();
    const res = await postReturn(order.customerId, returnBody(order, [0], overrides)).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(await returnCount(order.orderId)).toBe(0);
  });

  test(`${MAX_EVIDENCE_PATHS} evidence paths of ${MAX_EVIDENCE_PATH_LENGTH} characters are accepted`, async () => {
    const order = await deliveredOrder();
    const paths = Array.from({ length: MAX_EVIDENCE_PATHS }, (_, i) => `${i}/`.padEnd(MAX_EVIDENCE_PATH_LENGTH, 'x'));
    await postReturn(order.customerId, returnBody(order, [0], { evidencePaths: paths })).expect(201);
    expect((await returnsOf(order.customerId))[0].evidence_paths).toEqual(paths);
  });
});

describe('GET /account/returns', () => {
  test("the caller's returns only, newest first", async () => {
    const customer = randomUUID();
    const first = await deliveredOrder(customer);
    const second = await deliveredOrder(customer);
    await postReturn(customer, returnBody(first, [0])).expect(201);
    await postReturn(customer, returnBody(second, [2])).expect(201);
    const other = await deliveredOrder();
    await postReturn(other.customerId, returnBody(other, [0])).expect(201);

    const mine = await returnsOf(customer);
    expect(mine.map((r) => r.order_id)).toEqual([second.orderId, first.orderId]);
    expect(await returnsOf(randomUUID())).toEqual([]);
  });

  test("GET /account/returns/{id}: another customer's return is 404; a bad id is 400", async () => {
    const order = await deliveredOrder();
    const res = await postReturn(order.customerId, returnBody(order, [0])).expect(201);
    await http().get(res.headers.location).set(asCustomer(randomUUID())).expect(404);
    await http().get(`${RETURNS}/${randomUUID()}`).set(asCustomer(order.customerId)).expect(404);
    expect((await http().get(`${RETURNS}/abc`).set(asCustomer(order.customerId)).expect(400)).body.code).toBe('validation_failed');
  });
});
