import { randomUUID } from 'node:crypto';
import { consume, type RunningConsumer } from '@pasar/bus';
import { checkoutOrderCreated, type EventData } from '@pasar/contracts';
import { ProblemError } from '@pasar/service-kit';
import { signedHeaders, waitFor } from '@pasar/testkit';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import { sqlPoolOf } from '@pasar/db';
import { OrderBatcher, orderBatcherOf } from './order-batch';
import { batchEntryOf, isPlainOrder, placePlainOrder, priceOrder, type PlaceOrderInput } from './place-order';
import { submitOrder, toPlacedOrder, type OrderDeps } from './submit';
import type { PrismaClient } from '../generated/prisma/client';
import {
  countStatements,
  ordersClient,
  seedAddress,
  seedCategory,
  seedCustomer,
  seedKolCode,
  seedPoints,
  seedProduct,
  seedShippingMethod,
  seedStore,
  seedVoucher,
  stockOf,
  SEEDED_ADDRESS,
} from './test-fixtures';

let t: TestCheckout;
let prisma: PrismaClient;
let client: ReturnType<typeof ordersClient>;
const created: EventData<typeof checkoutOrderCreated>[] = [];
let consumer: RunningConsumer;

beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
  client = ordersClient(t);
  consumer = consume(t.peer.bus, { name: 'order-created-probe', event: checkoutOrderCreated, handler: async (data) => void created.push(data) });
  await consumer.ready;
});
afterAll(async () => {
  await consumer?.stop();
  await t?.stop();
});

/** A store with one flat MYR 5.00 method, a live product (MYR 20.00, 10 in stock) and a customer with an address. */
async function shop(product: Partial<Parameters<typeof seedProduct>[1]> = {}) {
  const storeId = await seedStore(prisma);
  const methodId = await seedShippingMethod(prisma, storeId, { rateConfig: { rate: '5.00' } });
  const item = await seedProduct(prisma, { storeId, ...product });
  const { customerId, addressId } = await seedCustomer(prisma);
  return { storeId, methodId, product: item, customerId, addressId };
}

const ordersOf = (customerId: string) => prisma.order.count({ where: { customerId } });

describe('POST /checkout/submit: the order', () => {
  test('answers 201 with the order; writes order, sub-order, items and a pending payment; takes the stock', async () => {
    const { storeId, methodId, product, customerId, addressId } = await shop({ basePrice: '19.90', stock: 7 });
    const before = Date.now();
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 3 }] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      orderId: expect.any(String),
      shortId: expect.stringMatching(/^PSR-[A-Z2-7]{8}$/),
      status: 'pending_payment',
      subtotal: '59.70',
      discountTotal: '0.00',
      shippingTotal: '5.00',
      total: '64.70',
      pointsRedeemed: 0,
    });
    expect(res.headers.location).toBe(`/api/v1/account/orders/${res.body.orderId}`);

    const order = await prisma.order.findUniqueOrThrow({ where: { id: res.body.orderId }, include: { subOrders: true, items: true, payment: true } });
    expect(order).toMatchObject({ customerId, status: 'pending_payment', isB2b: false, familyId: null, buyerTin: null, shipFullName: 'Siti Aminah', shipCity: 'Kuala Lumpur' });
    const ttl = order.expiresAt.getTime() - order.createdAt.getTime();
    expect(ttl).toBe(30 * 60_000);
    expect(order.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(order.subOrders).toHaveLength(1);
    expect(order.subOrders[0]).toMatchObject({ storeId, status: 'pending_payment', shippingMethodId: methodId });
    expect(order.subOrders[0].total.toFixed(2)).toBe('64.70');
    expect(order.items).toHaveLength(1);
    expect(order.items[0]).toMatchObject({ productId: product.id, variantId: null, productName: product.name, quantity: 3, subOrderId: order.subOrders[0].id, storeId });
    expect(order.items[0].unitPrice.toFixed(2)).toBe('19.90');
    expect(order.items[0].lineTotal.toFixed(2)).toBe('59.70');
    expect(order.payment).toMatchObject({ status: 'pending', currency: 'MYR' });
    expect(order.payment?.amount.toFixed(2)).toBe('64.70');
    expect(await stockOf(prisma, product.id)).toBe(4);
  });

  test('a variant is priced at its override and its own stock is taken', async () => {
    const { product, customerId, addressId } = await shop({
      basePrice: '30.00',
      stock: 0,
      variants: [
        { name: 'A Large', priceOverride: '35.50', stock: 4 },
        { name: 'B Small', stock: 6 },
      ],
    });
    const [large, small] = product.variants;
    const res = await client.submit(customerId, {
      addressId,
      items: [
        { productId: product.id, variantId: large.id, quantity: 2 },
        { productId: product.id, variantId: small.id, quantity: 1 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.subtotal).toBe('101.00'); // 2 × 35.50 + 30.00 (base price: no override)
    const variants = await prisma.productVariant.findMany({ where: { productId: product.id }, orderBy: { name: 'asc' } });
    expect(variants.map((v) => v.stock)).toEqual([2, 5]);
    const items = await prisma.orderItem.findMany({ where: { orderId: res.body.orderId }, orderBy: { variantName: 'asc' } });
    expect(items.map((i) => [i.variantName, i.unitPrice.toFixed(2)])).toEqual([
      ['A Large', '35.50'],
      ['B Small', '30.00'],
    ]);
  });

  test('repeated lines of one product become one item', async () => {
    const { product, customerId, addressId } = await shop();
    const res = await client.submit(customerId, {
      addressId,
      items: [
        { productId: product.id, quantity: 1 },
        { productId: product.id, quantity: 2 },
      ],
    });
    expect(res.status).toBe(201);
    const items = await prisma.orderItem.findMany({ where: { orderId: res.body.orderId } });
    expect(items.map((i) => i.quantity)).toEqual([3]);
  });

  test('publishes checkout.order.created through the outbox', async () => {
    const { storeId, methodId, product, customerId, addressId } = await shop({ basePrice: '12.00', weightKg: '0.750' });
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 2 }] });
    const event = await waitFor(() => created.find((e) => e.orderId === placed.orderId));
    const item = await prisma.orderItem.findFirstOrThrow({ where: { orderId: placed.orderId } });
    expect(event).toEqual({
      orderId: placed.orderId,
      shortId: placed.shortId,
      customerId,
      isB2b: false,
      familyId: null,
      purchaseRequestIds: [],
      buyerTin: null,
      total: '29.00',
      shippingAddress: SEEDED_ADDRESS,
      subOrders: [
        {
          subOrderId: item.subOrderId,
          storeId,
          shippingMethodId: methodId,
          subtotal: '24.00',
          shippingFee: '5.00',
          total: '29.00',
          items: [
            {
              orderItemId: item.id,
              productId: product.id,
              variantId: null,
              productName: product.name,
              variantName: null,
              quantity: 2,
              unitPrice: '12.00',
              weightKg: '0.750',
            },
          ],
        },
      ],
      createdAt: expect.any(String),
    });
    // the relay marks a batch once its acks are in: the consumer may have the event a moment before
    await waitFor(async () => {
      const outbox = await prisma.outbox.findMany({ where: { type: 'checkout.order.created' } });
      return outbox.find((o) => JSON.stringify(o.payload).includes(placed.orderId))?.publishedAt;
    });
  });
});

describe('POST /checkout/submit: refusals write nothing', () => {
  test('answers 400 multiple_stores for a cart of two stores', async () => {
    const { product, customerId, addressId } = await shop();
    const other = await seedProduct(prisma, { storeId: await seedStore(prisma, 'Other') });
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }, { productId: other.id, quantity: 1 }] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('multiple_stores');
    expect(await ordersOf(customerId)).toBe(0);
    expect(await stockOf(prisma, product.id)).toBe(10);
  });

  test('answers 400 insufficient_stock naming the product, and rolls back the lines already taken', async () => {
    const { storeId, product, customerId, addressId } = await shop({ stock: 10 });
    const scarce = await seedProduct(prisma, { storeId, name: 'Dodol Durian', stock: 1 });
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 2 }, { productId: scarce.id, quantity: 2 }] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('insufficient_stock');
    expect(res.body.detail).toContain('Dodol Durian');
    expect(await stockOf(prisma, product.id)).toBe(10);
    expect(await stockOf(prisma, scarce.id)).toBe(1);
    expect(await ordersOf(customerId)).toBe(0);
    expect(await prisma.outbox.count({ where: { payload: { path: ['data', 'customerId'], equals: customerId } } })).toBe(0);
  });

  test('answers 400 insufficient_stock for a variant with too few units', async () => {
    const { product, customerId, addressId } = await shop({ variants: [{ name: 'Red', stock: 1 }] });
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, variantId: product.variants[0].id, quantity: 2 }] });
    expect(res.body).toMatchObject({ status: 400, code: 'insufficient_stock' });
    expect(res.body.detail).toContain('Red');
  });

  test.each([
    ['a draft product', { status: 'draft' as const }, 'product_unavailable'],
    ['an archived product', { status: 'archived' as const }, 'product_unavailable'],
  ])('answers 400 for %s', async (_case, fields, code) => {
    const { product, customerId, addressId } = await shop(fields);
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] });
    expect(res.body).toMatchObject({ status: 400, code });
  });

  test('answers 400 product_unavailable for an unknown product', async () => {
    const { customerId, addressId } = await shop();
    const res = await client.submit(customerId, { addressId, items: [{ productId: randomUUID(), quantity: 1 }] });
    expect(res.body).toMatchObject({ status: 400, code: 'product_unavailable' });
  });

  test('answers 400 variant_required and unknown_variant', async () => {
    const { product, customerId, addressId } = await shop({ variants: [{ name: 'Red', stock: 3 }] });
    const plain = await seedProduct(prisma, { storeId: product.storeId });
    expect((await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] })).body.code).toBe('variant_required');
    expect((await client.submit(customerId, { addressId, items: [{ productId: product.id, variantId: randomUUID(), quantity: 1 }] })).body.code).toBe(
      'unknown_variant',
    );
    expect(
      (await client.submit(customerId, { addressId, items: [{ productId: plain.id, variantId: product.variants[0].id, quantity: 1 }] })).body.code,
    ).toBe('unknown_variant');
  });

  test("answers 404 for another customer's address or an unknown one", async () => {
    const { product, customerId } = await shop();
    const strangersAddress = await seedAddress(prisma, randomUUID());
    for (const addressId of [strangersAddress, randomUUID()]) {
      const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] });
      expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect(await ordersOf(customerId)).toBe(0);
  });

  test.each([
    ['no items', { items: [] }],
    ['a zero quantity', { items: [{ productId: randomUUID(), quantity: 0 }] }],
    ['a fractional quantity', { items: [{ productId: randomUUID(), quantity: 1.5 }] }],
    ['negative points', { loyaltyPoints: -1 }],
    ['an unknown field', { coupon: 'X' }],
    ['an address id that is not a uuid', { addressId: 'home' }],
  ])('answers 400 validation_failed for %s', async (_case, overrides) => {
    const { product, customerId, addressId } = await shop();
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], ...overrides });
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});

describe('POST /checkout/submit: buyer TIN', () => {
  test('is normalised, written on the order and saved to a profile without one', async () => {
    const { product, customerId, addressId } = await shop();
    const first = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], buyerTin: ' c-0012345 ' });
    expect((await prisma.order.findUniqueOrThrow({ where: { id: first.orderId } })).buyerTin).toBe('C12345');
    expect((await prisma.customerProfile.findUniqueOrThrow({ where: { customerId } })).tin).toBe('C12345');

    const second = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], buyerTin: 'IG012345678' });
    expect((await prisma.order.findUniqueOrThrow({ where: { id: second.orderId } })).buyerTin).toBe('IG012345678');
    expect((await prisma.customerProfile.findUniqueOrThrow({ where: { customerId } })).tin).toBe('C12345');
  });

  test('fills a profile row whose TIN is unset', async () => {
    const { product, customerId, addressId } = await shop();
    await prisma.customerProfile.create({ data: { customerId, tin: null } });
    await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], buyerTin: 'IG123456789' });
    expect((await prisma.customerProfile.findUniqueOrThrow({ where: { customerId } })).tin).toBe('IG123456789');
  });

  test('an empty TIN is none', async () => {
    const { product, customerId, addressId } = await shop();
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], buyerTin: '' });
    expect((await prisma.order.findUniqueOrThrow({ where: { id: placed.orderId } })).buyerTin).toBeNull();
    expect(await prisma.customerProfile.findUnique({ where: { customerId } })).toBeNull();
  });

  test.each(['X123', 'IG123', 'C000'])('answers 400 invalid_tin for %s and writes nothing', async (buyerTin) => {
    const { product, customerId, addressId } = await shop();
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], buyerTin });
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_tin' });
    expect(await ordersOf(customerId)).toBe(0);
    expect(await prisma.customerProfile.findUnique({ where: { customerId } })).toBeNull();
  });
});

describe('POST /checkout/submit: shipping', () => {
  test('the chosen active method of the store sets the fee', async () => {
    const { storeId, product, customerId, addressId } = await shop();
    const express = await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 12 } });
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], shippingMethodId: express });
    expect(placed.shippingTotal).toBe('12.00');
    expect((await prisma.subOrder.findFirstOrThrow({ where: { orderId: placed.orderId } })).shippingMethodId).toBe(express);
  });

  test('without a choice the cheapest active method is used', async () => {
    const { storeId, product, customerId, addressId } = await shop();
    await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 1 }, isActive: false });
    await seedShippingMethod(prisma, storeId, { rateConfig: { rate: '4.50' } });
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] });
    expect(placed.shippingTotal).toBe('4.50');
  });

  test('weight: base_rate + per_kg × kg of the cart', async () => {
    const storeId = await seedStore(prisma);
    const methodId = await seedShippingMethod(prisma, storeId, { type: 'weight', rateConfig: { base_rate: 4, per_kg: 3 } });
    const product = await seedProduct(prisma, { storeId, weightKg: '0.350' });
    const { customerId, addressId } = await seedCustomer(prisma);
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 3 }], shippingMethodId: methodId });
    expect(placed.shippingTotal).toBe('7.15'); // 4 + 3 × 1.05
  });

  test('dimension: base_rate + per_cm3 × cm³ of the cart', async () => {
    const storeId = await seedStore(prisma);
    await seedShippingMethod(prisma, storeId, { type: 'dimension', rateConfig: { base_rate: 2, per_cm3: 0.002 } });
    const product = await seedProduct(prisma, { storeId, dimensionsCm: ['10', '10', '10'] });
    const { customerId, addressId } = await seedCustomer(prisma);
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 2 }] });
    expect(placed.shippingTotal).toBe('6.00'); // 2 + 0.002 × 2000
  });

  test('a store without an active method ships free', async () => {
    const storeId = await seedStore(prisma);
    const product = await seedProduct(prisma, { storeId });
    const { customerId, addressId } = await seedCustomer(prisma);
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] });
    expect(placed.shippingTotal).toBe('0.00');
    expect((await prisma.subOrder.findFirstOrThrow({ where: { orderId: placed.orderId } })).shippingMethodId).toBeNull();
  });

  test("answers 400 shipping_method_unavailable for an inactive method or another store's", async () => {
    const { storeId, product, customerId, addressId } = await shop();
    const inactive = await seedShippingMethod(prisma, storeId, { isActive: false });
    const foreign = await seedShippingMethod(prisma, await seedStore(prisma));
    for (const shippingMethodId of [inactive, foreign, randomUUID()]) {
      const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], shippingMethodId });
      expect(res.body).toMatchObject({ status: 400, code: 'shipping_method_unavailable' });
    }
    expect(await stockOf(prisma, product.id)).toBe(10);
  });

  test('answers 400 shipping_unavailable when the method cannot quote the cart', async () => {
    const { storeId, product, customerId, addressId } = await shop({ weightKg: null });
    const byWeight = await seedShippingMethod(prisma, storeId, { type: 'weight', rateConfig: { base_rate: 1, per_kg: 1 } });
    const broken = await seedShippingMethod(prisma, storeId, { type: 'flat', rateConfig: { price: 5 } });
    for (const shippingMethodId of [byWeight, broken]) {
      const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], shippingMethodId });
      expect(res.body).toMatchObject({ status: 400, code: 'shipping_unavailable' });
    }
  });
});

describe('POST /checkout/submit: voucher, KOL code, points', () => {
  test('a voucher is re-validated, applied and counted', async () => {
    const { product, customerId, addressId } = await shop({ basePrice: '40.00' });
    const voucher = await seedVoucher(prisma, { discountType: 'percentage', discountValue: '15', minOrderAmount: '50', maxUses: 3 });
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 2 }], voucherId: voucher.id, voucherTier: 'platform' });
    expect(placed).toMatchObject({ subtotal: '80.00', discountTotal: '12.00', shippingTotal: '5.00', total: '73.00' });
    expect((await prisma.voucher.findUniqueOrThrow({ where: { id: voucher.id } })).usedCount).toBe(1);
    const order = await prisma.order.findUniqueOrThrow({ where: { id: placed.orderId }, include: { items: true } });
    expect(order.voucherId).toBe(voucher.id);
    expect(order.items[0].discount.toFixed(2)).toBe('12.00');
  });

  test('a store voucher applies to a cart of its store only', async () => {
    const { storeId, product, customerId, addressId } = await shop();
    const own = await seedVoucher(prisma, { tier: 'store', storeId, discountType: 'fixed', discountValue: '3.00' });
    const foreign = await seedVoucher(prisma, { tier: 'store', storeId: randomUUID() });
    expect((await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], voucherId: own.id })).discountTotal).toBe('3.00');
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], voucherId: foreign.id });
    expect(res.body).toMatchObject({ status: 400, code: 'voucher_store_scope' });
  });

  test.each([
    ['voucher_min_order', { minOrderAmount: '500' }, {}],
    ['voucher_exhausted', { maxUses: 1, usedCount: 1 }, {}],
    ['voucher_expired', { endsAt: new Date(Date.now() - 1000) }, {}],
    ['voucher_tier_mismatch', {}, { voucherTier: 'store' }],
  ])('answers 400 %s and counts nothing', async (code, fields, body) => {
    const { product, customerId, addressId } = await shop();
    const voucher = await seedVoucher(prisma, fields);
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], voucherId: voucher.id, ...body });
    expect(res.body).toMatchObject({ status: 400, code });
    expect((await prisma.voucher.findUniqueOrThrow({ where: { id: voucher.id } })).usedCount).toBe(voucher.usedCount);
    expect(await stockOf(prisma, product.id)).toBe(10);
  });

  test('answers 404 voucher_not_found for an unknown voucher', async () => {
    const { product, customerId, addressId } = await shop();
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], voucherId: randomUUID() });
    expect(res.body).toMatchObject({ status: 404, code: 'voucher_not_found' });
  });

  test('a KOL code discounts the lines of its category and is counted', async () => {
    const food = await seedCategory(prisma);
    const { storeId, product, customerId, addressId } = await shop({ basePrice: '50.00', categoryId: food });
    const other = await seedProduct(prisma, { storeId, basePrice: '30.00' });
    const code = await seedKolCode(prisma, food, { discountType: 'percentage', discountValue: '20' });
    const placed = await client.placed(customerId, {
      addressId,
      items: [{ productId: product.id, quantity: 1 }, { productId: other.id, quantity: 1 }],
      kolCode: code.toLowerCase(),
    });
    expect(placed).toMatchObject({ subtotal: '80.00', discountTotal: '10.00', total: '75.00' });
    const kol = await prisma.kolCode.findUniqueOrThrow({ where: { code } });
    expect(kol.usedCount).toBe(1);
    expect((await prisma.order.findUniqueOrThrow({ where: { id: placed.orderId } })).kolCodeId).toBe(kol.id);
    const items = await prisma.orderItem.findMany({ where: { orderId: placed.orderId } });
    expect(items.find((i) => i.productId === product.id)?.discount.toFixed(2)).toBe('10.00');
    expect(items.find((i) => i.productId === other.id)?.discount.toFixed(2)).toBe('0.00');
  });

  test('answers 400 kol_code_not_applicable, 400 kol_code_inactive, 404 kol_code_not_found', async () => {
    const { product, customerId, addressId } = await shop();
    const category = await seedCategory(prisma);
    const elsewhere = await seedKolCode(prisma, category);
    const inactive = await seedKolCode(prisma, category, { isActive: false });
    const items = [{ productId: product.id, quantity: 1 }];
    expect((await client.submit(customerId, { addressId, items, kolCode: elsewhere })).body).toMatchObject({ status: 400, code: 'kol_code_not_applicable' });
    expect((await client.submit(customerId, { addressId, items, kolCode: inactive })).body).toMatchObject({ status: 400, code: 'kol_code_inactive' });
    expect((await client.submit(customerId, { addressId, items, kolCode: 'NO-SUCH' })).body).toMatchObject({ status: 404, code: 'kol_code_not_found' });
    expect((await prisma.kolCode.findUniqueOrThrow({ where: { code: elsewhere } })).usedCount).toBe(0);
  });

  test('redeemed points are debited (redeem transaction) and reduce the total: 100 points = MYR 1.00', async () => {
    const { product, customerId, addressId } = await shop({ basePrice: '40.00' });
    await seedPoints(prisma, customerId, 3000);
    const placed = await client.placed(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], loyaltyPoints: 2000 });
    expect(placed).toMatchObject({ subtotal: '40.00', discountTotal: '20.00', total: '25.00', pointsRedeemed: 2000 });
    const account = await prisma.loyaltyAccount.findUniqueOrThrow({ where: { customerId } });
    expect(account).toMatchObject({ balance: 1000, totalRedeemed: 2000 });
    const [redeem] = await prisma.loyaltyTransaction.findMany({ where: { customerId } });
    expect(redeem).toMatchObject({ type: 'redeem', points: -2000, orderId: placed.orderId });
  });

  test('answers 400 loyalty_points_limit above 50% of the subtotal', async () => {
    const { product, customerId, addressId } = await shop({ basePrice: '40.00' });
    await seedPoints(prisma, customerId, 10_000);
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }], loyaltyPoints: 2001 });
    expect(res.body).toMatchObject({ status: 400, code: 'loyalty_points_limit' });
    expect((await prisma.loyaltyAccount.findUniqueOrThrow({ where: { customerId } })).balance).toBe(10_000);
  });

  test('answers 400 insufficient_points beyond the balance (or without an account) and rolls back the stock', async () => {
    const { product, customerId, addressId } = await shop({ basePrice: '40.00' });
    await seedPoints(prisma, customerId, 500);
    const items = [{ productId: product.id, quantity: 1 }];
    expect((await client.submit(customerId, { addressId, items, loyaltyPoints: 501 })).body).toMatchObject({ status: 400, code: 'insufficient_points' });
    const stranger = await seedCustomer(prisma);
    expect((await client.submit(stranger.customerId, { addressId: stranger.addressId, items, loyaltyPoints: 1 })).body.code).toBe('insufficient_points');
    expect(await stockOf(prisma, product.id)).toBe(10);
    expect((await prisma.loyaltyAccount.findUniqueOrThrow({ where: { customerId } })).balance).toBe(500);
    expect(await prisma.loyaltyTransaction.count({ where: { customerId } })).toBe(0);
  });
});

describe('POST /checkout/submit: concurrent submits share their reads', () => {
  test("the reads of submits that arrive together go in shared statements, and each submit gets its own customer's address, catalog and earlier order", async () => {
    const a = await shop({ basePrice: '10.00', stock: 50 });
    const b = await shop({ basePrice: '30.00', stock: 50 });
    const third = await seedCustomer(prisma);
    const deps: OrderDeps = { prisma, config: t.checkout.config };
    // an earlier order for a key the batch repeats
    const earlier = await client.submit(a.customerId, { addressId: a.addressId, items: [{ productId: a.product.id, quantity: 1 }] }, 'batched-reads');
    expect(earlier.status).toBe(201);
    const reads = countStatements(sqlPoolOf(prisma), 'checkout_submit_reads');
    try {
      // the use case called fourteen times in one tick: the submits arrive together (over HTTP they
      // trickle in one by one, each perhaps after the read before it returned)
      const submits = [
        ...Array.from({ length: 6 }, () => submitOrder(deps, a.customerId, { addressId: a.addressId, items: [{ productId: a.product.id, quantity: 1 }] })),
        ...Array.from({ length: 6 }, () => submitOrder(deps, b.customerId, { addressId: b.addressId, items: [{ productId: b.product.id, quantity: 2 }] })),
        submitOrder(deps, a.customerId, { addressId: a.addressId, items: [{ productId: a.product.id, quantity: 1 }] }, { idempotencyKey: 'batched-reads' }),
        // another customer's address: 404, whatever the others in its batch read
        submitOrder(deps, third.customerId, { addressId: a.addressId, items: [{ productId: a.product.id, quantity: 1 }] }),
      ];
      const results = await Promise.allSettled(submits);
      const placed = results.map((r) => (r.status === 'fulfilled' ? toPlacedOrder(r.value) : r.reason));
      expect(placed.slice(0, 6).map((o) => o.total)).toEqual(Array(6).fill('15.00'));
      expect(placed.slice(6, 12).map((o) => o.total)).toEqual(Array(6).fill('65.00'));
      expect(placed[12]).toEqual(earlier.body);
      expect(placed[13]).toBeInstanceOf(ProblemError);
      expect(placed[13]).toMatchObject({ status: 404 });
      // the first read goes alone, the second beside it (two in flight), the other twelve together
      expect(reads.calls).toBe(3);
    } finally {
      jest.restoreAllMocks();
    }
    expect(await ordersOf(a.customerId)).toBe(7);
    expect(await ordersOf(b.customerId)).toBe(6);
    expect(await ordersOf(third.customerId)).toBe(0);
  });
});

describe('POST /checkout/submit: Idempotency-Key', () => {
  test('a retry with the same key and body answers the first order (201) and places nothing new', async () => {
    const { product, customerId, addressId } = await shop();
    const body = { addressId, items: [{ productId: product.id, quantity: 2 }] };
    const first = await client.submit(customerId, body, 'key-1');
    expect(first.status).toBe(201);
    const retry = await client.submit(customerId, { items: [{ quantity: 2, productId: product.id }], addressId }, 'key-1');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(await ordersOf(customerId)).toBe(1);
    expect(await stockOf(prisma, product.id)).toBe(8);
  });

  test('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const { product, customerId, addressId } = await shop();
    await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] }, 'key-2').expect(201);
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 3 }] }, 'key-2');
    expect(res.body).toMatchObject({ status: 409, code: 'idempotency_key_reused' });
    expect(await ordersOf(customerId)).toBe(1);
  });

  test('keys are per customer', async () => {
    const { product, customerId, addressId } = await shop();
    const other = await seedCustomer(prisma);
    await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] }, 'shared').expect(201);
    await client.submit(other.customerId, { addressId: other.addressId, items: [{ productId: product.id, quantity: 1 }] }, 'shared').expect(201);
  });

  test('two identical requests racing place one order', async () => {
    const { product, customerId, addressId } = await shop();
    const body = { addressId, items: [{ productId: product.id, quantity: 1 }] };
    const results = await Promise.all(Array.from({ length: 5 }, () => client.submit(customerId, body, 'race')));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.orderId)).size).toBe(1);
    expect(await ordersOf(customerId)).toBe(1);
    expect(await stockOf(prisma, product.id)).toBe(9);
  });

  test('answers 400 for a key longer than 100 characters', async () => {
    const { product, customerId, addressId } = await shop();
    const res = await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] }, 'k'.repeat(101));
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
    await client.submit(customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] }, 'k'.repeat(100)).expect(201);
  });
});

describe('who may submit', () => {
  test('answers 401 without the gateway signature', async () => {
    const res = await client.http().post('/api/v1/checkout/submit').send({});
    expect(res.body).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  test.each(['vendor', 'admin'] as const)('answers 403 for the %s role and writes nothing', async (role) => {
    const { product, addressId, customerId } = await shop();
    const res = await client
      .http()
      .post('/api/v1/checkout/submit')
      .set(signedHeaders({ userId: customerId, role }))
      .send({ addressId, items: [{ productId: product.id, quantity: 1 }] });
    expect(res.body).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await ordersOf(customerId)).toBe(0);
  });
});

describe('POST /checkout/submit: priced from the pricing cache (no read), the write checking the rows it was priced from', () => {
  const reads = () => countStatements(sqlPoolOf(prisma), 'checkout_submit_reads');
  const body = (addressId: string, productId: string, quantity = 1) => ({ addressId, items: [{ productId, quantity }] });

  test('the second submit of a cart is priced from the rows the first one read: no read, the same order', async () => {
    const { product, customerId, addressId } = await shop({ basePrice: '12.00', stock: 10 });
    const first = await client.submit(customerId, body(addressId, product.id), randomUUID());
    expect(first.status).toBe(201);
    const counter = reads();
    try {
      const second = await client.submit(customerId, body(addressId, product.id, 2), randomUUID());
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ subtotal: '24.00', shippingTotal: '5.00', total: '29.00' });
      expect(counter.calls).toBe(0);
    } finally {
      jest.restoreAllMocks();
    }
    const order = await prisma.order.findFirstOrThrow({ where: { customerId, total: '29.00' }, include: { items: true } });
    expect(order).toMatchObject({ shipFullName: SEEDED_ADDRESS.fullName, shipCity: SEEDED_ADDRESS.city });
    expect(order.items.map((i) => [i.productName, i.quantity, i.unitPrice.toFixed(2)])).toEqual([[product.name, 2, '12.00']]);
    expect(await stockOf(prisma, product.id)).toBe(7);
  });

  test('a price changed since the rows were read: the write finds them stale, the submit reads afresh and charges the new price', async () => {
    const { product, customerId, addressId } = await shop({ basePrice: '12.00', stock: 10 });
    expect((await client.submit(customerId, body(addressId, product.id), randomUUID())).status).toBe(201);
    await prisma.product.update({ where: { id: product.id }, data: { basePrice: '15.50' } });
    const counter = reads();
    try {
      const res = await client.submit(customerId, body(addressId, product.id), randomUUID());
      expect(res.body).toMatchObject({ subtotal: '15.50', total: '20.50' });
      expect(counter.calls).toBe(1);
    } finally {
      jest.restoreAllMocks();
    }
    expect(await ordersOf(customerId)).toBe(2);
    expect(await stockOf(prisma, product.id)).toBe(8);
  });

  test('an address edited or deleted since: the order takes the new address; a deleted one answers 404 and writes nothing', async () => {
    const { product, customerId, addressId } = await shop({ stock: 10 });
    expect((await client.submit(customerId, body(addressId, product.id), randomUUID())).status).toBe(201);
    await prisma.customerAddress.update({ where: { id: addressId }, data: { city: 'Shah Alam', postcode: '40000' } });
    const moved = await client.submit(customerId, body(addressId, product.id), randomUUID());
    expect(moved.status).toBe(201);
    expect(await prisma.order.findUniqueOrThrow({ where: { id: moved.body.orderId } })).toMatchObject({ shipCity: 'Shah Alam', shipPostcode: '40000' });
    await prisma.customerAddress.delete({ where: { id: addressId } });
    const gone = await client.submit(customerId, body(addressId, product.id), randomUUID());
    expect(gone.body).toMatchObject({ status: 404, code: 'not_found' });
    expect(await ordersOf(customerId)).toBe(2);
  });

  test('a product taken off sale or a shipping method turned off since: refused as a fresh read refuses it', async () => {
    const { product, storeId, methodId, customerId, addressId } = await shop({ stock: 10 });
    const other = await seedProduct(prisma, { storeId, stock: 10 });
    expect((await client.submit(customerId, body(addressId, product.id), randomUUID())).status).toBe(201);
    expect((await client.submit(customerId, body(addressId, other.id), randomUUID())).status).toBe(201);
    await prisma.product.update({ where: { id: product.id }, data: { status: 'draft' } });
    expect((await client.submit(customerId, body(addressId, product.id), randomUUID())).body).toMatchObject({ status: 400, code: 'product_unavailable' });
    await prisma.shippingMethodReplica.update({ where: { id: methodId }, data: { isActive: false } });
    const noMethod = await client.submit(customerId, { ...body(addressId, other.id), shippingMethodId: methodId }, randomUUID());
    expect(noMethod.body).toMatchObject({ status: 400, code: 'shipping_method_unavailable' });
    expect(await ordersOf(customerId)).toBe(2);
  });

  test('stock is never taken from the cache: units gone since answer 400 insufficient_stock from the write; units back, the order is placed', async () => {
    const { product, customerId, addressId } = await shop({ stock: 10 });
    expect((await client.submit(customerId, body(addressId, product.id), randomUUID())).status).toBe(201);
    await prisma.product.update({ where: { id: product.id }, data: { stock: 0 } });
    expect((await client.submit(customerId, body(addressId, product.id), randomUUID())).body).toMatchObject({ status: 400, code: 'insufficient_stock' });
    await prisma.product.update({ where: { id: product.id }, data: { stock: 3 } });
    expect((await client.submit(customerId, body(addressId, product.id, 3), randomUUID())).status).toBe(201);
    expect(await stockOf(prisma, product.id)).toBe(0);
  });

  test('an Idempotency-Key retry priced from the cache answers the first order (the write finds it); another body with the key answers 409', async () => {
    const { product, customerId, addressId } = await shop({ stock: 10 });
    expect((await client.submit(customerId, body(addressId, product.id), randomUUID())).status).toBe(201);
    const first = await client.submit(customerId, body(addressId, product.id, 2), 'cached-retry');
    expect(first.status).toBe(201);
    const counter = reads();
    try {
      const again = await client.submit(customerId, body(addressId, product.id, 2), 'cached-retry');
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(counter.calls).toBe(0);
      const other = await client.submit(customerId, body(addressId, product.id, 1), 'cached-retry');
      expect(other.body).toMatchObject({ status: 409, code: 'idempotency_key_reused' });
    } finally {
      jest.restoreAllMocks();
    }
    expect(await ordersOf(customerId)).toBe(2);
    expect(await stockOf(prisma, product.id)).toBe(7);
  });

  test('one batch of orders of which one was priced from changed rows: that one alone is not placed (stale), the others are', async () => {
    const { product, customerId } = await shop({ stock: 10, basePrice: '10.00' });
    const batcher = new OrderBatcher(sqlPoolOf(prisma));
    const priced = () => priceOrder(prisma, { customerId, lines: [{ productId: product.id, quantity: 1 }], shippingAddress: SEEDED_ADDRESS, now: new Date(), paymentTtlMs: 60_000 });
    const { rows } = await sqlPoolOf(prisma).query<{ address: string; product: string; addressId: string }>(
      `SELECT address_version(a) AS address, a.id AS "addressId", (SELECT catalog_version(p) FROM product p WHERE p.id = $2) AS product
       FROM customer_address a WHERE a.customer_id = $1`,
      [customerId, product.id],
    );
    const current = { address: { id: rows[0].addressId, version: rows[0].address }, products: [{ id: product.id, version: rows[0].product }] };
    const outdated = { ...current, products: [{ id: product.id, version: 'an older version' }] };
    const placements = await Promise.all([placePlainOrder(batcher, await priced(), current), placePlainOrder(batcher, await priced(), outdated), placePlainOrder(batcher, await priced())]);
    expect(placements.map((p) => Object.keys(p)[0])).toEqual(['placed', 'stale', 'placed']);
    expect(await ordersOf(customerId)).toBe(2);
    expect(await stockOf(prisma, product.id)).toBe(8);
  });
  test("one place_orders call checks each element against its own rows: another customer's address, one outdated product among current ones, a key an order has", async () => {
    const one = await shop({ stock: 10, basePrice: '10.00' });
    const second = await seedProduct(prisma, { storeId: one.storeId, stock: 10 });
    const two = await shop({ stock: 10, basePrice: '10.00' });
    const earlier = await client.submit(one.customerId, body(one.addressId, one.product.id), 'checked-key');
    expect(earlier.status).toBe(201);
    const sql = sqlPoolOf(prisma);
    const addressVersion = async (addressId: string) =>
      (await sql.query<{ v: string }>('SELECT address_version(a) AS v FROM customer_address a WHERE a.id = $1', [addressId])).rows[0].v;
    const productVersion = async (productId: string) => (await sql.query<{ v: string }>('SELECT catalog_version(p) AS v FROM product p WHERE p.id = $1', [productId])).rows[0].v;
    const entryOf = async (customerId: string, productIds: string[], expect?: unknown, key?: string) => {
      const priced = await priceOrder(prisma, {
        customerId,
        lines: productIds.map((productId) => ({ productId, quantity: 1 })),
        shippingAddress: SEEDED_ADDRESS,
        now: new Date(),
        paymentTtlMs: 60_000,
      });
      const { entry } = await batchEntryOf(priced);
      if (key) entry.order.idempotency_key = key;
      return expect ? { ...entry, expect } : entry;
    };
    const [oneAddress, twoAddress] = [await addressVersion(one.addressId), await addressVersion(two.addressId)];
    const [oneProduct, secondProduct, twoProduct] = [await productVersion(one.product.id), await productVersion(second.id), await productVersion(two.product.id)];
    const batch = [
      await entryOf(one.customerId, [one.product.id], { address: { id: one.addressId, version: oneAddress }, products: [{ id: one.product.id, version: oneProduct }] }),
      // the other customer's address, with its right version, for an order of this customer
      await entryOf(one.customerId, [one.product.id], { address: { id: two.addressId, version: twoAddress }, products: [{ id: one.product.id, version: oneProduct }] }),
      await entryOf(one.customerId, [one.product.id], undefined, 'checked-key'),
      await entryOf(one.customerId, [one.product.id, second.id], {
        address: { id: one.addressId, version: oneAddress },
        products: [
          { id: one.product.id, version: oneProduct },
          { id: second.id, version: `${secondProduct}-older` },
        ],
      }),
      // ids as the customer may have typed them (upper case) name the same rows
      await entryOf(two.customerId, [two.product.id], { address: { id: two.addressId.toUpperCase(), version: twoAddress }, products: [{ id: two.product.id.toUpperCase(), version: twoProduct }] }),
    ];
    const { rows } = await sql.query<{ outcomes: { outcome: string; orderId?: string }[] }>('SELECT place_orders($1::jsonb) AS outcomes', [JSON.stringify(batch)]);
    expect(rows[0].outcomes.map((o) => o.outcome)).toEqual(['placed', 'stale', 'earlier', 'stale', 'placed']);
    expect(rows[0].outcomes[2].orderId).toBe(earlier.body.orderId);
    expect(await ordersOf(one.customerId)).toBe(2);
    expect(await ordersOf(two.customerId)).toBe(1);
    expect([await stockOf(prisma, one.product.id), await stockOf(prisma, second.id), await stockOf(prisma, two.product.id)]).toEqual([8, 10, 9]);
  });
});

describe('plain orders: placed through the order batcher (placePlainOrder)', () => {
  const batcher = () => orderBatcherOf(sqlPoolOf(prisma));
  /** The order placePlainOrder placed (the test fails on any other outcome). */
  const placed = async (placing: ReturnType<typeof placePlainOrder>) => {
    const placement = await placing;
    if (!('placed' in placement)) throw new Error(`not placed: ${JSON.stringify(placement)}`);
    return placement.placed;
  };
  const input = (customerId: string, lines: PlaceOrderInput['lines']): PlaceOrderInput => ({
    customerId,
    lines,
    shippingAddress: { fullName: 'Ali', phone: '+60123456789', addressLine1: '1 Jalan', addressLine2: null, city: 'KL', postcode: '50450', state: 'WP' },
    now: new Date(),
    paymentTtlMs: 60_000,
  });

  test('an order without voucher, points or KOL code qualifies, of one line or more; a multi-line order takes every row', async () => {
    const { product, customerId } = await shop({ stock: 5 });
    const one = await priceOrder(prisma, input(customerId, [{ productId: product.id, quantity: 1 }]));
    expect(isPlainOrder(one)).toBe(true);
    expect(isPlainOrder({ ...one, voucherId: randomUUID() })).toBe(false);
    expect(isPlainOrder({ ...one, kolCodeId: randomUUID() })).toBe(false);
    expect(isPlainOrder({ ...one, input: { ...one.input, loyaltyPoints: 100 } })).toBe(false);
    await expect(placePlainOrder(batcher(), { ...one, voucherId: randomUUID() })).rejects.toThrow('plain order');
    const { product: other } = await shop({ stock: 5 });
    const two = await priceOrder(prisma, input(customerId, [{ productId: product.id, quantity: 1 }, { productId: other.id, quantity: 2 }]));
    expect(isPlainOrder(two)).toBe(true);
    // a batcher with the service's relay hands the placed order's order.created over once committed
    const handedOver: { id: string; type: string; payload: unknown }[] = [];
    const handing = new OrderBatcher(sqlPoolOf(prisma));
    handing.handOverTo({ publishCommitted: (rows) => void handedOver.push(...rows) });
    const order = await placed(placePlainOrder(handing, two));
    expect(await prisma.orderItem.count({ where: { orderId: order.id } })).toBe(2);
    expect(handedOver).toHaveLength(1);
    const row = await prisma.outbox.findUniqueOrThrow({ where: { id: handedOver[0].id } });
    expect(row.type).toBe('checkout.order.created');
    expect(handedOver[0].payload).toEqual(row.payload);
    expect((handedOver[0].payload as { data: { orderId: string } }).data.orderId).toBe(order.id);
    expect([await stockOf(prisma, product.id), await stockOf(prisma, other.id)]).toEqual([4, 3]);
    // one of its rows short: nothing of it is written, the other row keeps its units
    const three = await priceOrder(prisma, input(customerId, [{ productId: product.id, quantity: 1 }, { productId: other.id, quantity: 3 }]));
    await prisma.product.update({ where: { id: other.id }, data: { stock: 2 } });
    await expect(placePlainOrder(handing, three)).rejects.toMatchObject({ status: 400, code: 'insufficient_stock' });
    expect(handedOver).toHaveLength(1); // nothing written, nothing handed over
    expect([await stockOf(prisma, product.id), await stockOf(prisma, other.id)]).toEqual([4, 2]);
    expect(await ordersOf(customerId)).toBe(1);
  });

  test('units gone between pricing and writing: 400 insufficient_stock and nothing written (no order, payment or event)', async () => {
    const { product, customerId } = await shop({ stock: 3 });
    const priced = await priceOrder(prisma, input(customerId, [{ productId: product.id, quantity: 2 }]));
    await prisma.product.update({ where: { id: product.id }, data: { stock: 1 } }); // another buyer took them meanwhile
    await expect(placePlainOrder(batcher(), priced)).rejects.toMatchObject({ status: 400, code: 'insufficient_stock' });
    expect(await ordersOf(customerId)).toBe(0);
    expect(await prisma.payment.count({ where: { order: { customerId } } })).toBe(0);
    expect(await prisma.outbox.count({ where: { payload: { path: ['data', 'customerId'], equals: customerId } } })).toBe(0);
    expect(await stockOf(prisma, product.id)).toBe(1);
  });

  test("a variant line takes the variant's own stock and writes the order, its payment and its event", async () => {
    const { product, customerId } = await shop({ stock: 0, variants: [{ name: 'Large', stock: 4, priceOverride: '30.00' }] });
    const [large] = product.variants;
    const priced = await priceOrder(prisma, input(customerId, [{ productId: product.id, variantId: large.id, quantity: 3 }]));
    const order = await placed(placePlainOrder(batcher(), priced));
    expect(order.subtotal.toFixed(2)).toBe('90.00');
    expect((await prisma.productVariant.findUniqueOrThrow({ where: { id: large.id } })).stock).toBe(1);
    expect(await prisma.payment.count({ where: { orderId: order.id } })).toBe(1);
    expect(await prisma.orderItem.count({ where: { orderId: order.id, variantId: large.id, quantity: 3 } })).toBe(1);
    expect(await prisma.outbox.count({ where: { payload: { path: ['data', 'orderId'], equals: order.id } } })).toBe(1);
    // and the rest of the variant's units are not enough for another 3
    const again = await priceOrder(prisma, input(customerId, [{ productId: product.id, variantId: large.id, quantity: 1 }]));
    await prisma.productVariant.update({ where: { id: large.id }, data: { stock: 0 } });
    await expect(placePlainOrder(batcher(), again)).rejects.toMatchObject({ code: 'insufficient_stock' });
    expect(await ordersOf(customerId)).toBe(1);
  });
});
