import { randomUUID } from 'node:crypto';
import { FOLLOWED_FEED_PAGE_SIZE, MAX_FOLLOWED_STORES, followedFeed, followedStore } from '@pasar/contracts';
import request from 'supertest';
import { z } from 'zod';
import { addStore } from '../catalog/test-fixtures';
import { addProduct, at, signedAs, testRoleGate } from '../wishlist/test-fixtures';
import { useTestCheckout } from '../../test/checkout';

const FOLLOWED = '/api/v1/account/followed-stores';
const FEED = '/api/v1/account/followed-feed';
const t = useTestCheckout();

const http = () => request(t.checkout.url);
const follow = (customerId: string, storeId: string) => http().post(FOLLOWED).set(signedAs('customer', customerId)).send({ storeId });

async function followedBy(customerId: string) {
  const res = await http().get(FOLLOWED).set(signedAs('customer', customerId)).expect(200);
  return z.array(followedStore.strict()).parse(res.body);
}

async function feedOf(customerId: string, query = '') {
  const res = await http().get(`${FEED}${query}`).set(signedAs('customer', customerId)).expect(200);
  return followedFeed.strict().parse(res.body);
}

describe('follows auth', () => {
  const endpoints = [['post', FOLLOWED], ['get', FOLLOWED], ['delete', `${FOLLOWED}/${randomUUID()}`], ['get', FEED]] as const;
  testRoleGate(t, 'customer', endpoints, { storeId: randomUUID() });
});

describe('POST, GET and DELETE /account/followed-stores', () => {
  test('follow is idempotent (204, one row); the list shows Followed stores, most recently followed first', async () => {
    const customer = randomUUID();
    const books = await addStore(t, { name: 'Kedai Buku', slug: `buku-${randomUUID()}`, logoPath: 'logos/buku.png' });
    const batik = await addStore(t, { name: 'Batik Sdn Bhd', slug: `batik-${randomUUID()}` });

    await follow(customer, books.storeId).expect(204);
    await follow(customer, batik.storeId).expect(204);
    await follow(customer, books.storeId).expect(204);

    expect(await followedBy(customer)).toEqual([
      { id: batik.storeId, name: 'Batik Sdn Bhd', slug: batik.slug, logo_url: null },
      { id: books.storeId, name: 'Kedai Buku', slug: books.slug, logo_url: 'http://127.0.0.1:8080/storage/logos/buku.png' },
    ]);
    expect(await t.checkout.prisma.storeFollow.count({ where: { customerId: customer } })).toBe(2);
  });

  test('concurrent follows of one store leave one row', async () => {
    const customer = randomUUID();
    const store = await addStore(t);
    const statuses = await Promise.all(Array.from({ length: 4 }, async () => (await follow(customer, store.storeId)).status));
    expect(statuses).toEqual([204, 204, 204, 204]);
    expect(await t.checkout.prisma.storeFollow.count({ where: { customerId: customer } })).toBe(1);
  });

  test('404 for a store no replica knows; nothing written', async () => {
    const customer = randomUUID();
    const res = await follow(customer, randomUUID()).expect(404);
    expect(res.body.code).toBe('not_found');
    expect(await followedBy(customer)).toEqual([]);
  });

  test.each([
    ['no storeId', {}],
    ['a storeId that is not a uuid', { storeId: 'kedai' }],
    ['an unknown field', { storeId: randomUUID(), name: 'x' }],
  ])('400 for %s', async (_label, body) => {
    const res = await http().post(FOLLOWED).set(signedAs('customer')).send(body).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });

  test(`409 follow_limit past ${MAX_FOLLOWED_STORES} stores; following one already followed still answers 204`, async () => {
    const customer = randomUUID();
    const ids = Array.from({ length: MAX_FOLLOWED_STORES }, () => randomUUID());
    const updatedAt = new Date();
    await t.checkout.prisma.storeReplica.createMany({
      data: ids.map((storeId) => ({ storeId, ownerUserId: randomUUID(), name: 'Bulk', slug: `bulk-${storeId}`, status: 'active', updatedAt })),
    });
    await t.checkout.prisma.storeFollow.createMany({ data: ids.map((storeId) => ({ customerId: customer, storeId })) });
    const extra = await addStore(t);

    expect((await follow(customer, extra.storeId).expect(409)).body.code).toBe('follow_limit');
    await follow(customer, ids[0]).expect(204);
  });

  test('DELETE unfollows, and is idempotent (also for a store never followed)', async () => {
    const customer = randomUUID();
    const kept = await addStore(t);
    const dropped = await addStore(t);
    await follow(customer, kept.storeId).expect(204);
    await follow(customer, dropped.storeId).expect(204);

    await http().delete(`${FOLLOWED}/${dropped.storeId}`).set(signedAs('customer', customer)).expect(204);
    await http().delete(`${FOLLOWED}/${dropped.storeId}`).set(signedAs('customer', customer)).expect(204);
    await http().delete(`${FOLLOWED}/${randomUUID()}`).set(signedAs('customer', customer)).expect(204);
    expect((await followedBy(customer)).map((s) => s.id)).toEqual([kept.storeId]);
  });

  test('DELETE with a storeId that is not a uuid: 400', async () => {
    const res = await http().delete(`${FOLLOWED}/kedai`).set(signedAs('customer')).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });

  test("one customer's follows are not another's, and another's unfollow does not touch them", async () => {
    const owner = randomUUID();
    const other = randomUUID();
    const store = await addStore(t);
    await follow(owner, store.storeId).expect(204);

    expect(await followedBy(other)).toEqual([]);
    await http().delete(`${FOLLOWED}/${store.storeId}`).set(signedAs('customer', other)).expect(204);
    expect((await followedBy(owner)).map((s) => s.id)).toEqual([store.storeId]);
  });
});

describe('GET /account/followed-feed', () => {
  test('live products of the followed active stores only, newest first, as Product cards', async () => {
    const customer = randomUUID();
    const followed = await addStore(t, { name: 'Kedai Kopi' });
    const suspended = await addStore(t, { status: 'suspended' });
    const notFollowed = await addStore(t);
    await follow(customer, followed.storeId).expect(204);
    await follow(customer, suspended.storeId).expect(204);

    const older = await addProduct(t, followed.storeId, { name: 'Kopi O', basePrice: '12.00', createdAt: at(1), imagePath: 'p/kopi.jpg' });
    const newer = await addProduct(t, followed.storeId, { name: 'Teh Tarik', basePrice: '8.50', createdAt: at(2) });
    await addProduct(t, followed.storeId, { status: 'draft', createdAt: at(3) });
    await addProduct(t, followed.storeId, { status: 'archived', createdAt: at(4) });
    await addProduct(t, suspended.storeId, { createdAt: at(5) });
    await addProduct(t, notFollowed.storeId, { createdAt: at(6) });

    expect(await feedOf(customer, '?page=1')).toEqual({
      products: [
        { id: newer.id, name: 'Teh Tarik', slug: newer.slug, price: '8.50', image_url: null, avg_rating: '0.00', store_id: followed.storeId, store_name: 'Kedai Kopi' },
        { id: older.id, name: 'Kopi O', slug: older.slug, price: '12.00', image_url: 'http://127.0.0.1:8080/storage/p/kopi.jpg', avg_rating: '0.00', store_id: followed.storeId, store_name: 'Kedai Kopi' },
      ],
      totalPages: 1,
    });
  });

  test(`${FOLLOWED_FEED_PAGE_SIZE} per page with totalPages; page defaults to 1; a page past the last is empty`, async () => {
    const customer = randomUUID();
    const a = await addStore(t);
    const b = await addStore(t);
    await follow(customer, a.storeId).expect(204);
    await follow(customer, b.storeId).expect(204);
    const products = [];
    for (let i = 0; i < FOLLOWED_FEED_PAGE_SIZE + 3; i += 1) {
      products.push(await addProduct(t, i % 2 === 0 ? a.storeId : b.storeId, { createdAt: at(100 + i) }));
    }
    const newestFirst = products.map((p) => p.id).reverse();

    const first = await feedOf(customer);
    expect(first.totalPages).toBe(2);
    expect(first.products.map((p) => p.id)).toEqual(newestFirst.slice(0, FOLLOWED_FEED_PAGE_SIZE));
    const second = await feedOf(customer, '?page=2');
    expect(second).toEqual({ products: expect.any(Array), totalPages: 2 });
    expect(second.products.map((p) => p.id)).toEqual(newestFirst.slice(FOLLOWED_FEED_PAGE_SIZE));
    expect(await feedOf(customer, '?page=3')).toEqual({ products: [], totalPages: 2 });
    expect(await feedOf(customer, '?page=10000')).toEqual({ products: [], totalPages: 2 });
  });

  test('no follows: no products, no pages', async () => {
    expect(await feedOf(randomUUID())).toEqual({ products: [], totalPages: 0 });
  });

  test.each(['0', '-1', '1.5', 'abc', '', '1e400', '10001'])('400 for page=%s', async (page) => {
    const res = await http().get(`${FEED}?page=${page}`).set(signedAs('customer')).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });
});
