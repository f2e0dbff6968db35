import { randomUUID } from 'node:crypto';
import { MAX_WISHLIST_ITEMS, productCard, wishlistIds } from '@pasar/contracts';
import request from 'supertest';
import { z } from 'zod';
import { addStore } from '../catalog/test-fixtures';
import { addProduct, signedAs, testRoleGate } from './test-fixtures';
import { useTestCheckout } from '../../test/checkout';

const WISHLIST = '/api/v1/account/wishlist';
const TOGGLE = `${WISHLIST}/toggle`;
const t = useTestCheckout();

const http = () => request(t.checkout.url);

const rowsOf = (customerId: string) => t.checkout.prisma.wishlistItem.count({ where: { customerId } });

async function toggle(customerId: string, productId: string): Promise<boolean> {
  const res = await http().post(TOGGLE).set(signedAs('customer', customerId)).send({ productId }).expect(200);
  return z.object({ wishlisted: z.boolean() }).strict().parse(res.body).wishlisted;
}

async function cardsOf(customerId: string) {
  const res = await http().get(WISHLIST).set(signedAs('customer', customerId)).expect(200);
  return z.array(productCard.strict()).parse(res.body);
}

async function idsOf(customerId: string): Promise<string[]> {
  const res = await http().get(`${WISHLIST}/ids`).set(signedAs('customer', customerId)).expect(200);
  return wishlistIds.parse(res.body);
}

describe('wishlist auth', () => {
  testRoleGate(t, 'customer', [['get', WISHLIST], ['get', `${WISHLIST}/ids`], ['post', TOGGLE]], { productId: randomUUID() });
});

describe('POST /account/wishlist/toggle', () => {
  test('adds, then removes: wishlisted is the new state', async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const product = await addProduct(t, store.storeId);

    expect(await toggle(customer, product.id)).toBe(true);
    expect(await idsOf(customer)).toEqual([product.id]);
    expect(await toggle(customer, product.id)).toBe(false);
    expect(await idsOf(customer)).toEqual([]);
    expect(await toggle(customer, product.id)).toBe(true);
    expect(await rowsOf(customer)).toBe(1);
  });

  test('404 for an unknown product, a draft or archived one, or one of an inactive store; nothing written', async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const suspended = await addStore(t, { status: 'suspended' });
    const hidden = [
      randomUUID(),
      (await addProduct(t, store.storeId, { status: 'draft' })).id,
      (await addProduct(t, store.storeId, { status: 'archived' })).id,
      (await addProduct(t, suspended.storeId)).id,
    ];
    for (const productId of hidden) {
      const res = await http().post(TOGGLE).set(signedAs('customer', customer)).send({ productId }).expect(404);
      expect(res.body.code).toBe('not_found');
    }
    expect(await rowsOf(customer)).toBe(0);
  });

  test.each([
    ['no productId', {}],
    ['a productId that is not a uuid', { productId: 'abc' }],
    ['an unknown field', { productId: randomUUID(), extra: true }],
  ])('400 for %s', async (_label, body) => {
    const res = await http().post(TOGGLE).set(signedAs('customer')).send(body).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });

  test('a product that left the catalog after it was wishlisted can still be removed', async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const product = await addProduct(t, store.storeId);
    expect(await toggle(customer, product.id)).toBe(true);
    await t.checkout.prisma.product.update({ where: { id: product.id }, data: { status: 'archived' } });

    expect(await idsOf(customer)).toEqual([]);
    expect(await toggle(customer, product.id)).toBe(false);
    expect(await rowsOf(customer)).toBe(0);
  });

  test('concurrent toggles take turns: they alternate and leave at most one row', async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const product = await addProduct(t, store.storeId);

    const states = await Promise.all(Array.from({ length: 5 }, () => toggle(customer, product.id)));
    expect(states.filter(Boolean)).toHaveLength(3);
    expect(states.filter((s) => !s)).toHaveLength(2);
    expect(await t.checkout.prisma.wishlistItem.count({ where: { customerId: customer, productId: product.id } })).toBe(1);
  });

  test(`409 wishlist_full past ${MAX_WISHLIST_ITEMS} products; removing still works`, async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const ids = Array.from({ length: MAX_WISHLIST_ITEMS }, () => randomUUID());
    await t.checkout.prisma.product.createMany({
      data: ids.map((id) => ({ id, storeId: store.storeId, name: 'Bulk', slug: `bulk-${id}`, status: 'live' as const, basePrice: '1.00' })),
    });
    await t.checkout.prisma.wishlistItem.createMany({ data: ids.map((productId) => ({ customerId: customer, productId })) });
    const extra = await addProduct(t, store.storeId);

    const res = await http().post(TOGGLE).set(signedAs('customer', customer)).send({ productId: extra.id }).expect(409);
    expect(res.body.code).toBe('wishlist_full');
    expect(await toggle(customer, ids[0])).toBe(false);
    expect(await toggle(customer, extra.id)).toBe(true);
  });
});

describe('GET /account/wishlist and /account/wishlist/ids', () => {
  test('Product cards, newest first: price and rating as strings, image URL from public storage (null without one)', async () => {
    const customer = randomUUID();
    const store = await addStore(t, { name: 'Kedai Buku' });
    const first = await addProduct(t, store.storeId, { name: 'Novel', basePrice: '39.90', imagePath: 'products/novel.jpg', avgRating: '4.25' });
    const second = await addProduct(t, store.storeId, { name: 'Atlas', basePrice: '120.00' });
    await toggle(customer, first.id);
    await toggle(customer, second.id);

    expect(await cardsOf(customer)).toEqual([
      {
        id: second.id,
        name: 'Atlas',
        slug: second.slug,
        price: '120.00',
        image_url: null,
        avg_rating: '0.00',
        store_id: store.storeId,
        store_name: 'Kedai Buku',
      },
      {
        id: first.id,
        name: 'Novel',
        slug: first.slug,
        price: '39.90',
        image_url: 'http://127.0.0.1:8080/storage/products/novel.jpg',
        avg_rating: '4.25',
        store_id: store.storeId,
        store_name: 'Kedai Buku',
      },
    ]);
    expect(await idsOf(customer)).toEqual([second.id, first.id]);
  });

  test("a product with variants shows its lowest variant price (the catalog's card price)", async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const product = await addProduct(t, store.storeId, { basePrice: '50.00' });
    await t.checkout.prisma.productVariant.createMany({
      data: [
        { productId: product.id, name: 'Large', priceOverride: '55.00', stock: 1 },
        { productId: product.id, name: 'Small', priceOverride: '42.50', stock: 1 },
      ],
    });
    await toggle(customer, product.id);
    expect((await cardsOf(customer)).map((c) => c.price)).toEqual(['42.50']);
  });

  test("empty for a customer without a wishlist; another customer's wishlist is not shown", async () => {
    const owner = randomUUID();
    const store = await addStore(t);
    const product = await addProduct(t, store.storeId);
    await toggle(owner, product.id);

    const other = randomUUID();
    expect(await cardsOf(other)).toEqual([]);
    expect(await idsOf(other)).toEqual([]);
    expect(await idsOf(owner)).toEqual([product.id]);
  });

  test('a deleted product leaves the wishlist with it', async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const product = await addProduct(t, store.storeId);
    await toggle(customer, product.id);
    await t.checkout.prisma.product.delete({ where: { id: product.id } });
    expect(await cardsOf(customer)).toEqual([]);
    expect(await rowsOf(customer)).toBe(0);
  });
});
