import { randomUUID } from 'node:crypto';
import { placedOrder } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { MembershipStatus, PrismaClient } from '../generated/prisma/client';
import { as, seedProduct, seedShippingMethod, seedStore, stockOf } from './test-fixtures';

let t: TestCheckout;
let prisma: PrismaClient;

beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
});
afterAll(async () => {
  await t?.stop();
});

const URL = '/api/v1/checkout/family/submit';
const submit = (userId: string, body: Record<string, unknown> = {}, idempotencyKey?: string) => {
  const req = request(t.checkout.url).post(URL).set(as('customer', userId));
  return (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req).send(body);
};

const FAMILY_ADDRESS = {
  fullName: 'Keluarga Rahman',
  phone: '+60122223333',
  addressLine1: '8 Jalan Bunga Raya',
  addressLine2: 'Taman Melati',
  city: 'Ipoh',
  postcode: '30450',
  state: 'Perak',
};

/**
 * A family (owner + one active member) whose cart holds a variant of store A's product and two of
 * store B's product; store A ships flat MYR 6.00, store B by weight.
 */
async function familyWithCart(options: { address?: boolean; ownerTin?: string | null; memberStatus?: MembershipStatus } = {}) {
  const ownerId = randomUUID();
  const memberId = randomUUID();
  const family = await prisma.familyAccount.create({
    data: { ownerId, name: 'Rahman', ...(options.address === false ? {} : FAMILY_ADDRESS) },
  });
  await prisma.familyMember.createMany({
    data: [
      { familyId: family.id, userId: ownerId, email: 'owner@example.test', fullName: 'Owner', status: 'active', mustChangePassword: false },
      { familyId: family.id, userId: memberId, email: 'member@example.test', fullName: 'Member', status: options.memberStatus ?? 'active' },
    ],
  });
  if (options.ownerTin !== null) await prisma.customerProfile.create({ data: { customerId: ownerId, tin: options.ownerTin ?? 'IG123456789' } });

  const storeA = await seedStore(prisma, 'Store A');
  const storeB = await seedStore(prisma, 'Store B');
  const methodA = await seedShippingMethod(prisma, storeA, { rateConfig: { rate: 6 } });
  const methodB = await seedShippingMethod(prisma, storeB, { type: 'weight', rateConfig: { base_rate: 3, per_kg: 2 } });
  const shirt = await seedProduct(prisma, { storeId: storeA, name: 'Baju', basePrice: '40.00', variants: [{ name: 'M', priceOverride: '45.00', stock: 5 }] });
  const tea = await seedProduct(prisma, { storeId: storeB, name: 'Teh', basePrice: '12.50', weightKg: '0.250', stock: 8 });
  const shirtItem = await prisma.familyCartItem.create({ data: { familyId: family.id, productId: shirt.id, variantId: shirt.variants[0].id, quantity: 1, addedBy: ownerId } });
  const teaItem = await prisma.familyCartItem.create({ data: { familyId: family.id, productId: tea.id, quantity: 2, addedBy: memberId } });
  return { family, ownerId, memberId, storeA, storeB, methodA, methodB, shirt, tea, shirtItem, teaItem };
}

test('an active member checks out the whole cart: one sub-order per store, family address, owner TIN, cart item ids in admin_notes', async () => {
  const f = await familyWithCart();
  const res = await submit(f.memberId).expect(201);
  const placed = placedOrder.parse(res.body);
  // 45.00 + 2 × 12.50 = 70.00; shipping 6.00 + (3 + 2 × 0.5) = 10.00
  expect(placed).toMatchObject({ status: 'pending_payment', subtotal: '70.00', discountTotal: '0.00', shippingTotal: '10.00', total: '80.00', pointsRedeemed: 0 });
  expect(res.headers.location).toBe(`/api/v1/account/orders/${placed.orderId}`);

  const order = await prisma.order.findUniqueOrThrow({ where: { id: placed.orderId }, include: { subOrders: { include: { items: true } }, payment: true } });
  expect(order).toMatchObject({
    customerId: f.memberId,
    familyId: f.family.id,
    buyerTin: 'IG123456789',
    shipFullName: FAMILY_ADDRESS.fullName,
    shipAddressLine2: FAMILY_ADDRESS.addressLine2,
    shipCity: 'Ipoh',
  });
  expect(JSON.parse(order.adminNotes ?? '')).toEqual({ familyCartItemIds: [f.shirtItem.id, f.teaItem.id] });
  const byStore = new Map(order.subOrders.map((s) => [s.storeId, s]));
  expect(byStore.get(f.storeA)).toMatchObject({ shippingMethodId: f.methodA });
  expect(byStore.get(f.storeA)?.total.toFixed(2)).toBe('51.00');
  expect(byStore.get(f.storeB)).toMatchObject({ shippingMethodId: f.methodB });
  expect(byStore.get(f.storeB)?.total.toFixed(2)).toBe('29.00');
  expect(byStore.get(f.storeA)?.items.map((i) => [i.productName, i.variantName, i.unitPrice.toFixed(2)])).toEqual([['Baju', 'M', '45.00']]);
  expect(order.payment?.amount.toFixed(2)).toBe('80.00');

  expect((await prisma.productVariant.findUniqueOrThrow({ where: { id: f.shirt.variants[0].id } })).stock).toBe(4);
  expect(await stockOf(prisma, f.tea.id)).toBe(6);
  // the cart is emptied by the payment notification, not by submit
  expect(await prisma.familyCartItem.count({ where: { familyId: f.family.id } })).toBe(2);
  const outbox = await prisma.outbox.findMany({ where: { type: 'checkout.order.created', payload: { path: ['data', 'orderId'], equals: placed.orderId } } });
  expect(outbox).toHaveLength(1);
  expect(outbox[0].payload).toMatchObject({ data: { familyId: f.family.id, buyerTin: 'IG123456789' } });
});

test('the owner may check out too; the listed cart items only; a chosen method wins over a cheaper one', async () => {
  const f = await familyWithCart();
  await seedShippingMethod(prisma, f.storeB, { rateConfig: { rate: 1 } });
  const expensive = await seedShippingMethod(prisma, f.storeB, { rateConfig: { rate: 9 } });
  const placed = placedOrder.parse((await submit(f.ownerId, { cartItemIds: [f.teaItem.id], shippingMethodIds: [expensive] }).expect(201)).body);
  expect(placed).toMatchObject({ subtotal: '25.00', shippingTotal: '9.00', total: '34.00' });
  const order = await prisma.order.findUniqueOrThrow({ where: { id: placed.orderId }, include: { subOrders: true } });
  expect(order.subOrders.map((s) => s.storeId)).toEqual([f.storeB]);
  expect(JSON.parse(order.adminNotes ?? '')).toEqual({ familyCartItemIds: [f.teaItem.id] });
});

test('a store without a chosen method gets its cheapest active one', async () => {
  const f = await familyWithCart();
  await seedShippingMethod(prisma, f.storeB, { rateConfig: { rate: '0.50' } });
  const placed = placedOrder.parse((await submit(f.memberId, { shippingMethodIds: [f.methodA] }).expect(201)).body);
  expect(placed.shippingTotal).toBe('6.50');
});

test('answers 400 shipping_method_unavailable for a method of no store of the cart, or two for one store', async () => {
  const f = await familyWithCart();
  const second = await seedShippingMethod(prisma, f.storeA);
  for (const shippingMethodIds of [[randomUUID()], [f.methodA, second]]) {
    const res = await submit(f.memberId, { shippingMethodIds });
    expect(res.body).toMatchObject({ status: 400, code: 'shipping_method_unavailable' });
  }
});

test('buyer_tin is null when the owner has no TIN', async () => {
  const f = await familyWithCart({ ownerTin: null });
  const placed = placedOrder.parse((await submit(f.memberId).expect(201)).body);
  expect((await prisma.order.findUniqueOrThrow({ where: { id: placed.orderId } })).buyerTin).toBeNull();
});

test('answers 400 family_address_missing until the owner sets the address', async () => {
  const f = await familyWithCart({ address: false });
  const res = await submit(f.memberId);
  expect(res.body).toMatchObject({ status: 400, code: 'family_address_missing' });
  expect(await prisma.order.count({ where: { familyId: f.family.id } })).toBe(0);
});

test('answers 404 for a cart item that is not in the family cart, 400 cart_empty for an empty cart', async () => {
  const f = await familyWithCart();
  const other = await familyWithCart();
  expect((await submit(f.memberId, { cartItemIds: [f.teaItem.id, other.teaItem.id] })).body).toMatchObject({ status: 404, code: 'not_found' });
  await prisma.familyCartItem.deleteMany({ where: { familyId: f.family.id } });
  expect((await submit(f.memberId)).body).toMatchObject({ status: 400, code: 'cart_empty' });
});

test('answers 400 insufficient_stock and takes nothing from any store', async () => {
  const f = await familyWithCart();
  await prisma.familyCartItem.update({ where: { id: f.teaItem.id }, data: { quantity: 9 } });
  const res = await submit(f.memberId);
  expect(res.body).toMatchObject({ status: 400, code: 'insufficient_stock' });
  expect((await prisma.productVariant.findUniqueOrThrow({ where: { id: f.shirt.variants[0].id } })).stock).toBe(5);
  expect(await stockOf(prisma, f.tea.id)).toBe(8);
});

test('a product no longer on sale refuses the submit', async () => {
  const f = await familyWithCart();
  await prisma.product.update({ where: { id: f.tea.id }, data: { status: 'archived' } });
  expect((await submit(f.memberId)).body).toMatchObject({ status: 400, code: 'product_unavailable' });
});

test('the same Idempotency-Key and body answers the first order', async () => {
  const f = await familyWithCart();
  const first = await submit(f.memberId, {}, 'family-1').expect(201);
  const retry = await submit(f.memberId, {}, 'family-1').expect(201);
  expect(retry.body).toEqual(first.body);
  expect((await submit(f.memberId, { cartItemIds: [f.teaItem.id] }, 'family-1')).body.code).toBe('idempotency_key_reused');
  expect(await prisma.order.count({ where: { familyId: f.family.id } })).toBe(1);
});

test('answers 404 outside a family and 403 membership_pending before account setup', async () => {
  expect((await submit(randomUUID())).body).toMatchObject({ status: 404, code: 'not_found' });
  const f = await familyWithCart({ memberStatus: 'pending' });
  expect((await submit(f.memberId)).body).toMatchObject({ status: 403, code: 'membership_pending' });
  const removed = await familyWithCart({ memberStatus: 'inactive' });
  expect((await submit(removed.memberId)).body).toMatchObject({ status: 404 });
});

test('answers 401 unsigned, 403 for vendors and admins, 400 for a bad body', async () => {
  await request(t.checkout.url).post(URL).send({}).expect(401);
  const f = await familyWithCart();
  for (const role of ['vendor', 'admin'] as const) {
    await request(t.checkout.url).post(URL).set(signedHeaders({ userId: f.ownerId, role })).send({}).expect(403);
  }
  expect((await submit(f.memberId, { cartItemIds: ['x'] })).body.code).toBe('validation_failed');
  expect((await submit(f.memberId, { cartItemIds: [] })).body.code).toBe('validation_failed');
  expect(await prisma.order.count({ where: { familyId: f.family.id } })).toBe(0);
});
