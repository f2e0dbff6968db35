/**
 * Quantities times prices, merged lines and shipping rates that would overflow a Decimal(12,2)
 * column (or the int points an order earns) answer 400 `amount_too_large` before anything is
 * written, instead of a 500 from PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Prisma } from '../generated/prisma/client';
import { useTestCheckout } from '../../test/checkout';
import { MAX_ORDER_AMOUNT, amountTooLarge, type OrderPlan } from './rules';
import { as, ordersClient, seedCustomer, seedProduct, seedShippingMethod, seedStore, stockOf } from './test-fixtures';

const d = (value: string | number) => new Prisma.Decimal(value);

function plan(fields: { lines?: string[]; shippingFee?: string; discount?: string } = {}): { plan: OrderPlan; lineTotals: Prisma.Decimal[] } {
  const lineTotals = (fields.lines ?? ['10.00']).map(d);
  const subtotal = lineTotals.reduce((sum, l) => sum.add(l), d(0));
  const shippingFee = d(fields.shippingFee ?? '5.00');
  const discount = d(fields.discount ?? '0');
  const total = subtotal.sub(discount).add(shippingFee);
  return {
    lineTotals,
    plan: {
      lineDiscounts: lineTotals.map(() => d(0)),
      subOrders: [{ storeId: 's', subtotal, discount, shippingFee, total }],
      subtotal,
      kolDiscount: d(0),
      voucherDiscount: discount,
      pointsValue: d(0),
      discountTotal: discount,
      shippingTotal: shippingFee,
      total,
    },
  };
}

describe('amountTooLarge', () => {
  test.each([
    ['an ordinary order', {}, false],
    ['exactly the bound, no shipping', { lines: [MAX_ORDER_AMOUNT.toFixed(2)], shippingFee: '0' }, false],
    ['one line over the bound', { lines: ['1000000000.00'], shippingFee: '0', discount: '1000.00' }, true],
    ['lines that add up over the bound', { lines: ['600000000.00', '600000000.00'], shippingFee: '0', discount: '300000000.00' }, true],
    ['shipping that takes the total over the bound', { lines: [MAX_ORDER_AMOUNT.toFixed(2)], shippingFee: '0.01' }, true],
    ['a shipping fee over the bound alone', { lines: ['1.00'], shippingFee: '1e12' }, true],
    ['far beyond Decimal(12,2)', { lines: ['1e20'] }, true],
  ])('%s', (_name, fields, tooLarge) => {
    const { plan: p, lineTotals } = plan(fields);
    expect(amountTooLarge(p, lineTotals) !== null).toBe(tooLarge);
  });
});

describe('POST /checkout/submit with amounts past Decimal(12,2)', () => {
  const t = useTestCheckout();
  const client = () => ordersClient(t);
  const prisma = () => t.checkout.prisma;

  async function expectRefused(customerId: string, body: Record<string, unknown>) {
    const before = await prisma().order.count({ where: { customerId } });
    const res = await client().submit(customerId, body);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'amount_too_large' });
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(await prisma().order.count({ where: { customerId } })).toBe(before);
  }

  test('a quantity times the price over the column: 400, nothing written, stock untouched', async () => {
    const storeId = await seedStore(prisma());
    const product = await seedProduct(prisma(), { storeId, basePrice: '9000000000.00', stock: 100 });
    const { customerId, addressId } = await seedCustomer(prisma());
    await expectRefused(customerId, { addressId, items: [{ productId: product.id, quantity: 2 }] });
    expect(await stockOf(prisma(), product.id)).toBe(100);
  });

  test('lines of the same product that merge into an overflowing line: 400', async () => {
    const storeId = await seedStore(prisma());
    const product = await seedProduct(prisma(), { storeId, basePrice: '600000.00', stock: 5000 });
    const { customerId, addressId } = await seedCustomer(prisma());
    // each line alone is within the bound (999 × 600,000.00); merged they are not (1,998 × 600,000.00)
    await expectRefused(customerId, {
      addressId,
      items: [
        { productId: product.id, quantity: 999 },
        { productId: product.id, quantity: 999 },
      ],
    });
    expect(await stockOf(prisma(), product.id)).toBe(5000);
  });

  test('a shipping rate that overflows the fee: 400', async () => {
    const storeId = await seedStore(prisma());
    const product = await seedProduct(prisma(), { storeId, basePrice: '10.00', stock: 10 });
    const shippingMethodId = await seedShippingMethod(prisma(), storeId, { type: 'weight', rateConfig: { base_rate: 1, per_kg: 1e15 } });
    const { customerId, addressId } = await seedCustomer(prisma());
    await expectRefused(customerId, { addressId, items: [{ productId: product.id, quantity: 3 }], shippingMethodId });
  });

  test('an order of exactly the bound is placed', async () => {
    const storeId = await seedStore(prisma());
    const product = await seedProduct(prisma(), { storeId, basePrice: MAX_ORDER_AMOUNT.toFixed(2), stock: 2 });
    const { customerId, addressId } = await seedCustomer(prisma());
    const placed = await client().placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] });
    expect(placed.total).toBe(MAX_ORDER_AMOUNT.toFixed(2));
  });

  test('a family cart whose lines at 999 units overflow: family submit answers 400, the cart stays', async () => {
    const ownerId = randomUUID();
    const family = await prisma().familyAccount.create({
      data: { ownerId, name: 'Besar', fullName: 'Keluarga Besar', phone: '+60122223333', addressLine1: '8 Jalan Bunga Raya', city: 'Ipoh', postcode: '30450', state: 'Perak' },
    });
    await prisma().familyMember.create({ data: { familyId: family.id, userId: ownerId, email: 'owner@example.test', fullName: 'Owner', status: 'active', mustChangePassword: false } });
    const storeId = await seedStore(prisma());
    const product = await seedProduct(prisma(), { storeId, basePrice: '9999999999.99', stock: 1000 });
    await prisma().familyCartItem.create({ data: { familyId: family.id, productId: product.id, quantity: 999, addedBy: ownerId } });

    // the cart itself is only priced for display: it answers, whatever its size
    const cart = await request(t.checkout.url).get('/api/v1/family/cart').set(as('customer', ownerId));
    expect(cart.status).toBe(200);

    const res = await request(t.checkout.url).post('/api/v1/checkout/family/submit').set(as('customer', ownerId)).send({});
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'amount_too_large' });
    expect(await prisma().order.count({ where: { customerId: ownerId } })).toBe(0);
    expect(await prisma().familyCartItem.count({ where: { familyId: family.id } })).toBe(1);
    expect(await stockOf(prisma(), product.id)).toBe(1000);
  });
});
