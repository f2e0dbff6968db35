import { randomUUID } from 'node:crypto';
import { adminOrderDetail, adminOrderPage } from '@pasar/contracts';
import request from 'supertest';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { PrismaClient } from '../generated/prisma/client';
import { submitOrder, type OrderDeps } from '../orders/submit';
import { as, seedCustomer, seedProduct, seedShippingMethod, seedStore } from '../orders/test-fixtures';

let t: TestCheckout;
let prisma: PrismaClient;
let storeId: string;
let productId: string;

beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
  storeId = await seedStore(prisma, 'Kedai Kopi');
  await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 5 } });
  productId = (await seedProduct(prisma, { storeId, name: 'Kopi', basePrice: '15.00', stock: 10_000 })).id;
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.checkout.url);
const admin = () => as('admin');

/** A customer with a replica row (as identity.user.upserted writes it: e-mail lower-case). */
async function customer(email = `buyer-${randomUUID().slice(0, 8)}@example.com`) {
  const seeded = await seedCustomer(prisma);
  await prisma.userReplica.create({ data: { userId: seeded.customerId, email, fullName: 'Nur Aisyah', role: 'customer', updatedAt: new Date() } });
  return { ...seeded, email };
}

function place(customerId: string, addressId: string, at = new Date()) {
  const deps: OrderDeps = { prisma, config: t.checkout.config, clock: () => at };
  return submitOrder(deps, customerId, { addressId, items: [{ productId, quantity: 2 }] });
}

const search = (q: string, extra = '') => http().get(`/api/v1/admin/orders?q=${encodeURIComponent(q)}${extra}`).set(admin());

describe('GET /admin/orders', () => {
  test('finds an order by its short id (any case) and by its id', async () => {
    const buyer = await customer();
    const order = await place(buyer.customerId, buyer.addressId);
    for (const q of [order.shortId, order.shortId.toLowerCase(), order.id]) {
      const page = adminOrderPage.parse((await search(q).expect(200)).body);
      expect(page).toEqual({
        orders: [
          {
            id: order.id,
            shortId: order.shortId,
            status: 'pending_payment',
            customerId: buyer.customerId,
            customerEmail: buyer.email,
            customerName: 'Nur Aisyah',
            total: '35.00',
            subOrderCount: 1,
            isB2b: false,
            createdAt: order.createdAt.toISOString(),
          },
        ],
        nextCursor: null,
      });
    }
  });

  test("finds a customer's orders by e-mail in any case, newest first, a page at a time", async () => {
    const buyer = await customer();
    const other = await customer();
    const at = Date.now() - 60_000;
    const placed = [];
    for (let i = 0; i < 5; i += 1) placed.push(await place(buyer.customerId, buyer.addressId, new Date(at + i * 1000)));
    await place(other.customerId, other.addressId);
    const newestFirst = placed.reverse().map((o) => o.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const extra: string = `&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = adminOrderPage.parse((await search(buyer.email.toUpperCase(), extra).expect(200)).body);
      seen.push(...page.orders.map((o) => o.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(newestFirst);
    expect(pages).toBe(3);
  });

  test('an e-mail, id or short id nobody has: an empty page', async () => {
    for (const q of ['nobody@example.com', randomUUID(), 'PSR-AAAAAAAA']) {
      expect((await search(q).expect(200)).body).toEqual({ orders: [], nextCursor: null });
    }
  });

  test.each([
    ['a word', 'coffee', 'unusable_query'],
    ['a short id of the wrong length', 'PSR-ABC', 'unusable_query'],
    ['a short id with letters outside base32', 'PSR-ABCDEFG1', 'unusable_query'],
    ['no q', undefined, 'validation_failed'],
  ])('%s: 400 %s', async (_name, q, code) => {
    const res = await http()
      .get(`/api/v1/admin/orders${q === undefined ? '' : `?q=${q}`}`)
      .set(admin())
      .expect(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.code).toBe(code);
  });

  test('a cursor this API did not answer: 400 invalid_cursor', async () => {
    const res = await search('someone@example.com', '&cursor=bm90LWEtY3Vyc29y').expect(400);
    expect(res.body.code).toBe('invalid_cursor');
  });

  test.each(['customer', 'vendor'] as const)('the %s role: 403', async (role) => {
    const res = await http().get('/api/v1/admin/orders?q=someone@example.com').set(as(role)).expect(403);
    expect(res.body.code).toBe('forbidden');
  });
});

describe('GET /admin/orders/{id}', () => {
  test('sub-orders with items, the payment, its notifications without payload, and the timeline oldest first', async () => {
    const buyer = await customer();
    const placedAt = new Date(Date.now() - 3_600_000);
    const order = await place(buyer.customerId, buyer.addressId, placedAt);
    const subOrder = await prisma.subOrder.findFirstOrThrow({ where: { orderId: order.id } });
    const paidAt = new Date(placedAt.getTime() + 60_000);
    const shippedAt = new Date(placedAt.getTime() + 120_000);
    await prisma.paymentNotification.create({
      data: { orderId: order.id, transactionId: 'TX-1', status: '00', verified: true, payload: { skey: 'a-secret-hash', tranID: 'TX-1' }, receivedAt: paidAt },
    });
    await prisma.payment.update({ where: { orderId: order.id }, data: { status: 'paid', transactionId: 'TX-1', paidAt, attempts: 1 } });
    await prisma.order.update({ where: { id: order.id }, data: { status: 'shipped', paidAt } });
    await prisma.subOrder.update({ where: { id: subOrder.id }, data: { status: 'shipped', courier: 'carrier_a', trackingId: 'TRK-1', shippedAt } });

    const res = await http().get(`/api/v1/admin/orders/${order.id}`).set(admin()).expect(200);
    expect(JSON.stringify(res.body)).not.toContain('a-secret-hash');
    const detail = adminOrderDetail.parse(res.body);
    expect(detail.order).toMatchObject({ id: order.id, shortId: order.shortId, status: 'shipped', customerEmail: buyer.email, subtotal: '30.00', shippingTotal: '5.00', total: '35.00', paidAt: paidAt.toISOString() });
    expect(detail.subOrders).toEqual([
      {
        id: subOrder.id,
        storeId,
        storeName: 'Kedai Kopi',
        status: 'shipped',
        subtotal: '30.00',
        shippingFee: '5.00',
        total: '35.00',
        courier: 'carrier_a',
        trackingId: 'TRK-1',
        items: [{ productName: 'Kopi', variantName: null, quantity: 2, lineTotal: '30.00' }],
      },
    ]);
    expect(detail.payment).toEqual({ status: 'paid', amount: '35.00', refundedAmount: '0.00', currency: 'MYR', attempts: 1, transactionId: 'TX-1', paidAt: paidAt.toISOString() });
    expect(detail.paymentNotifications).toEqual([{ transactionId: 'TX-1', status: '00', verified: true, receivedAt: paidAt.toISOString() }]);
    expect(detail.timeline.map((e) => [e.kind, e.at])).toEqual([
      ['order_placed', placedAt.toISOString()],
      ['payment_notification', paidAt.toISOString()],
      ['order_paid', paidAt.toISOString()],
      ['sub_order_shipped', shippedAt.toISOString()],
    ]);
    expect(detail.timeline[3]).toMatchObject({ subject: subOrder.id, detail: 'Kedai Kopi: shipped (carrier_a TRK-1)' });
  });

  test('an unknown order: 404; not a uuid: 400', async () => {
    expect((await http().get(`/api/v1/admin/orders/${randomUUID()}`).set(admin()).expect(404)).body.code).toBe('not_found');
    expect((await http().get('/api/v1/admin/orders/PSR-AAAAAAAA').set(admin()).expect(400)).body.code).toBe('validation_failed');
  });

  test('the customer role: 403, even for their own order', async () => {
    const buyer = await customer();
    const order = await place(buyer.customerId, buyer.addressId);
    expect((await http().get(`/api/v1/admin/orders/${order.id}`).set(as('customer', buyer.customerId)).expect(403)).body.code).toBe('forbidden');
  });
});
