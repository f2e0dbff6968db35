import { randomUUID } from 'node:crypto';
import { loyaltyResponse } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { useTestCheckout } from '../../test/checkout';
import { creditPoints } from './ledger';
import { MAX_POINTS_BALANCE } from './rules';
import { as, ordersClient, seedCustomer, seedPoints, seedProduct, seedStore } from '../orders/test-fixtures';

const t = useTestCheckout();

const http = () => request(t.checkout.url);
const loyaltyOf = async (customerId: string, query = '') =>
  loyaltyResponse.parse((await http().get(`/api/v1/account/loyalty${query}`).set(as('customer', customerId)).expect(200)).body);

describe('GET /account/loyalty', () => {
  test('a customer without an account has zeros and no transactions', async () => {
    expect(await loyaltyOf(randomUUID())).toEqual({ balance: 0, totalEarned: 0, totalRedeemed: 0, transactions: [], totalPages: 0 });
  });

  test('the account and its transactions, newest first, 20 per page', async () => {
    const customerId = randomUUID();
    await t.checkout.prisma.loyaltyAccount.create({ data: { customerId, balance: 180, totalEarned: 250, totalRedeemed: 70 } });
    const orderId = randomUUID();
    await t.checkout.prisma.loyaltyTransaction.createMany({
      data: Array.from({ length: 25 }, (_, i) => ({
        customerId,
        type: i % 5 === 0 ? ('redeem' as const) : ('earn' as const),
        points: i % 5 === 0 ? -14 : 10,
        orderId: i === 24 ? orderId : null,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
      })),
    });
    await t.checkout.prisma.loyaltyTransaction.create({ data: { customerId: randomUUID(), type: 'earn', points: 99 } });

    const first = await loyaltyOf(customerId);
    expect(first).toMatchObject({ balance: 180, totalEarned: 250, totalRedeemed: 70, totalPages: 2 });
    expect(first.transactions).toHaveLength(20);
    expect(first.transactions[0]).toEqual({ id: expect.any(String), type: 'earn', points: 10, order_id: orderId, created_at: '2026-01-01T00:24:00.000Z' });
    expect(first.transactions[4]).toMatchObject({ type: 'redeem', points: -14, order_id: null, created_at: '2026-01-01T00:20:00.000Z' });
    const second = await loyaltyOf(customerId, '?page=2');
    expect(second.transactions.map((tx) => tx.created_at)).toEqual([4, 3, 2, 1, 0].map((m) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString()));
    expect((await loyaltyOf(customerId, '?page=3')).transactions).toEqual([]);
  });

  test('a submit that redeems points shows as a redeem transaction of its order', async () => {
    const storeId = await seedStore(t.checkout.prisma);
    const product = await seedProduct(t.checkout.prisma, { storeId, basePrice: '50.00' });
    const { customerId, addressId } = await seedCustomer(t.checkout.prisma);
    await seedPoints(t.checkout.prisma, customerId, 2500);
    const placed = await ordersClient(t).placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], loyaltyPoints: 1500 });
    const loyalty = await loyaltyOf(customerId);
    expect(loyalty).toMatchObject({ balance: 1000, totalEarned: 2500, totalRedeemed: 1500, totalPages: 1 });
    expect(loyalty.transactions).toEqual([{ id: expect.any(String), type: 'redeem', points: -1500, order_id: placed.orderId, created_at: expect.any(String) }]);
  });

  test.each(['0', '10001', '-1', '1.5', 'x'])('answers 400 validation_failed for page=%s', async (page) => {
    const res = await http().get(`/api/v1/account/loyalty?page=${page}`).set(as('customer')).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });

  test('page 10000 is allowed', async () => {
    expect((await loyaltyOf(randomUUID(), '?page=10000')).transactions).toEqual([]);
  });
});

describe('GET /account/loyalty-balance', () => {
  test('0 without an account, else the balance', async () => {
    const customerId = randomUUID();
    const balanceOf = async () => (await http().get('/api/v1/account/loyalty-balance').set(as('customer', customerId)).expect(200)).body;
    expect(await balanceOf()).toEqual({ balance: 0 });
    await seedPoints(t.checkout.prisma, customerId, 420);
    expect(await balanceOf()).toEqual({ balance: 420 });
  });
});

describe('who may read loyalty', () => {
  test.each(['/api/v1/account/loyalty', '/api/v1/account/loyalty-balance'])('GET %s answers 401 unsigned, 403 for vendor and admin', async (path) => {
    expect((await http().get(path)).status).toBe(401);
    for (const role of ['vendor', 'admin'] as const) expect((await http().get(path).set(signedHeaders({ role }))).status).toBe(403);
  });
});

describe('the points ledger near its ceiling', () => {
  test('a credit past MAX_POINTS_BALANCE is cut to what fits, never an int overflow; a full account takes nothing', async () => {
    const customerId = randomUUID();
    const prisma = t.checkout.prisma;
    await prisma.loyaltyAccount.create({ data: { customerId, balance: MAX_POINTS_BALANCE - 100, totalEarned: MAX_POINTS_BALANCE - 100, totalRedeemed: 0 } });
    // one maximum-size order earns about 1e9 points: before the cap, balance + earned overflowed int4 (a 500 on payment)
    await prisma.$transaction((tx) => creditPoints(tx, 'earn', { customerId, points: 999_999_999, orderId: randomUUID() }));
    await prisma.$transaction((tx) => creditPoints(tx, 'earn', { customerId, points: 999_999_999, orderId: randomUUID() }));
    expect(await prisma.loyaltyAccount.findUniqueOrThrow({ where: { customerId } })).toMatchObject({ balance: MAX_POINTS_BALANCE, totalEarned: MAX_POINTS_BALANCE });
    const entries = await prisma.loyaltyTransaction.findMany({ where: { customerId } });
    expect(entries.map((entry) => entry.points)).toEqual([100]);
  });
});
