import { randomUUID } from 'node:crypto';
import { customerOrderList, orderDetail, pendingOrder } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { PrismaClient } from '../generated/prisma/client';
import { submitOrder, type OrderDeps } from './submit';
import { as, SEEDED_ADDRESS, seedCustomer, seedProduct, seedShippingMethod, seedStore } from './test-fixtures';

let t: TestCheckout;
let prisma: PrismaClient;
let storeId: string;
let productId: string;

beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
  storeId = await seedStore(prisma, 'Kedai Buku');
  await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 5 } });
  productId = (await seedProduct(prisma, { storeId, name: 'Novel', basePrice: '15.00', stock: 10_000 })).id;
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.checkout.url);

/** Submits through the use case with a clock of our choosing (created_at, expires_at). */
function place(customerId: string, addressId: string, at: Date, quantity = 1) {
  const deps: OrderDeps = { prisma, config: t.checkout.config, clock: () => at };
  return submitOrder(deps, customerId, { addressId, items: [{ productId, quantity }] });
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe('GET /account/orders', () => {
  test('the caller’s orders, newest first, 20 per page, with units ordered', async () => {
    const { customerId, addressId } = await seedCustomer(prisma);
    const placed = [];
    for (let i = 0; i < 23; i += 1) placed.push(await place(customerId, addressId, minutesAgo(100 - i), (i % 3) + 1));
    const stranger = await seedCustomer(prisma);
    await place(stranger.customerId, stranger.addressId, new Date());

    const first = customerOrderList.parse((await http().get('/api/v1/account/orders').set(as('customer', customerId)).expect(200)).body);
    expect(first.page).toBe(1);
    expect(first.totalPages).toBe(2);
    expect(first.orders).toHaveLength(20);
    expect(first.orders.map((o) => o.id)).toEqual(placed.slice(3).reverse().map((o) => o.id));
    const newest = placed[22];
    expect(first.orders[0]).toEqual({
      id: newest.id,
      shortId: newest.shortId,
      status: 'pending_payment',
      total: '35.00', // 2 × 15.00 + 5.00 shipping
      createdAt: newest.createdAt.toISOString(),
      itemCount: 2,
    });

    const second = customerOrderList.parse((await http().get('/api/v1/account/orders?page=2').set(as('customer', customerId)).expect(200)).body);
    expect(second.orders.map((o) => o.id)).toEqual(placed.slice(0, 3).reverse().map((o) => o.id));
    expect(second.orders.map((o) => o.itemCount)).toEqual([3, 2, 1]);
  });

  test('answers an empty first page for a customer without orders', async () => {
    const res = await http().get('/api/v1/account/orders').set(as('customer')).expect(200);
    expect(res.body).toEqual({ orders: [], page: 1, totalPages: 0 });
  });

  test.each(['0', '10001', 'two'])('answers 400 validation_failed for page=%s', async (page) => {
    const res = await http().get(`/api/v1/account/orders?page=${page}`).set(as('customer')).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });
});

describe('GET /account/orders/{id}', () => {
  test('the order with its sub-orders (store name, status, tracking), items and payment', async () => {
    const { customerId, addressId } = await seedCustomer(prisma);
    const order = await place(customerId, addressId, minutesAgo(1), 2);
    const subOrder = await prisma.subOrder.findFirstOrThrow({ where: { orderId: order.id } });
    const item = await prisma.orderItem.findFirstOrThrow({ where: { orderId: order.id } });
    const shippedAt = new Date('2026-03-02T03:04:05.000Z');
    await prisma.subOrder.update({
      where: { id: subOrder.id },
      data: { status: 'shipped', courier: 'carrier_a', trackingId: 'TRK123', trackingUrl: 'https://track.example/TRK123', shippedAt },
    });
    await prisma.payment.update({ where: { orderId: order.id }, data: { refundedAmount: '5.00' } });

    const res = await http().get(`/api/v1/account/orders/${order.id}`).set(as('customer', customerId)).expect(200);
    expect(orderDetail.parse(res.body)).toEqual({
      id: order.id,
      shortId: order.shortId,
      status: 'pending_payment',
      isB2b: false,
      familyId: null,
      buyerTin: null,
      subtotal: '30.00',
      discountTotal: '0.00',
      shippingTotal: '5.00',
      total: '35.00',
      pointsRedeemed: 0,
      pointsEarned: 0,
      createdAt: order.createdAt.toISOString(),
      expiresAt: order.expiresAt.toISOString(),
      paidAt: null,
      shippingAddress: SEEDED_ADDRESS,
      subOrders: [
        {
          id: subOrder.id,
          storeId,
          storeName: 'Kedai Buku',
          status: 'shipped',
          shippingFee: '5.00',
          total: '35.00',
          courier: 'carrier_a',
          trackingId: 'TRK123',
          trackingUrl: 'https://track.example/TRK123',
          shippedAt: shippedAt.toISOString(),
          deliveredAt: null,
          cancelledAt: null,
          items: [
            {
              id: item.id,
              productId,
              variantId: null,
              productName: 'Novel',
              variantName: null,
              unitPrice: '15.00',
              quantity: 2,
              lineTotal: '30.00',
            },
          ],
        },
      ],
      payment: { status: 'pending', amount: '35.00', refundedAmount: '5.00', paidAt: null },
    });
  });

  test("answers 404 for another customer's order and for an unknown id; 400 for an id that is not a uuid", async () => {
    const { customerId, addressId } = await seedCustomer(prisma);
    const order = await place(customerId, addressId, new Date());
    expect((await http().get(`/api/v1/account/orders/${order.id}`).set(as('customer')).expect(404)).body.code).toBe('not_found');
    await http().get(`/api/v1/account/orders/${randomUUID()}`).set(as('customer', customerId)).expect(404);
    await http().get('/api/v1/account/orders/latest').set(as('customer', customerId)).expect(400);
  });
});

describe('GET /checkout/pending-order', () => {
  const pendingOf = async (customerId: string) =>
    pendingOrder.parse((await http().get('/api/v1/checkout/pending-order').set(as('customer', customerId)).expect(200)).body);

  test('null for a customer without an unpaid order', async () => {
    const res = await http().get('/api/v1/checkout/pending-order').set(as('customer')).expect(200);
    expect(res.body).toBeNull();
  });

  test('the newest order awaiting payment that has not expired', async () => {
    const { customerId, addressId } = await seedCustomer(prisma);
    const older = await place(customerId, addressId, minutesAgo(10));
    const newer = await place(customerId, addressId, minutesAgo(5));
    expect(await pendingOf(customerId)).toEqual({
      orderId: newer.id,
      shortId: newer.shortId,
      status: 'pending_payment',
      total: '20.00',
      createdAt: newer.createdAt.toISOString(),
      expiresAt: newer.expiresAt.toISOString(),
    });
    await prisma.order.update({ where: { id: newer.id }, data: { status: 'paid' } });
    expect((await pendingOf(customerId))?.orderId).toBe(older.id);
  });

  test('an order past its expiry is not pending any more, even before the sweep marks it', async () => {
    const { customerId, addressId } = await seedCustomer(prisma);
    await place(customerId, addressId, minutesAgo(31));
    expect(await pendingOf(customerId)).toBeNull();
  });
});

describe('who may read orders', () => {
  const paths = ['/api/v1/account/orders', `/api/v1/account/orders/${randomUUID()}`, '/api/v1/checkout/pending-order'];

  test.each(paths)('GET %s answers 401 unsigned and 403 for vendor and admin', async (path) => {
    expect((await http().get(path)).status).toBe(401);
    for (const role of ['vendor', 'admin'] as const) expect((await http().get(path).set(signedHeaders({ role }))).status).toBe(403);
  });
});
