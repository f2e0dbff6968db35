import { randomUUID } from 'node:crypto';
import { catalogProductDetail, catalogProductPage, category as categorySchema } from '@pasar/contracts';
import { ConfigError, loadConfig } from '@pasar/service-kit';
import request from 'supertest';
import { z } from 'zod';
import { useTestCheckout } from '../../test/checkout';
import { checkoutConfigSchema } from '../config';
import { addStore, anonymous, as, createProduct } from './test-fixtures';

const PRODUCTS = '/api/v1/catalog/products';
const t = useTestCheckout();

const http = () => request(t.checkout.url);

async function browse(query: string) {
  const res = await http().get(`${PRODUCTS}?${query}`).set(anonymous()).expect(200);
  return catalogProductPage.parse(res.body);
}

const newCategory = (name = `Category ${randomUUID()}`) => t.checkout.prisma.category.create({ data: { name, slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-') } });

describe('GET /catalog/products', () => {
  test('answers Product cards (with stock) of live products of active stores only', async () => {
    const tag = `zq${randomUUID().slice(0, 6)}`;
    const active = await addStore(t, { name: 'Kedai Aktif' });
    const suspended = await addStore(t, { status: 'suspended' });
    const live = await createProduct(t, active, { name: `${tag} live`, imagePath: 'products/a.jpg', basePrice: '19.90', stock: 4 });
    await createProduct(t, active, { name: `${tag} draft`, status: 'draft' });
    await createProduct(t, active, { name: `${tag} archived`, status: 'archived' });
    await createProduct(t, suspended, { name: `${tag} suspended store` });
    // a live product whose store vendor never told us about
    await t.checkout.prisma.product.create({ data: { storeId: randomUUID(), name: `${tag} unknown store`, slug: 'x', status: 'live', basePrice: '1.00' } });

    const page = await browse(`q=${tag}`);
    expect(page).toEqual({
      products: [
        {
          id: live.id,
          name: `${tag} live`,
          slug: live.slug,
          price: '19.90',
          image_url: 'http://127.0.0.1:8080/storage/products/a.jpg',
          avg_rating: '0.00',
          store_id: active.storeId,
          store_name: 'Kedai Aktif',
          stock: 4,
        },
      ],
      page: 1,
      totalPages: 1,
      total: 1,
    });
  });

  test('a product with variants shows the lowest effective price and the sum of the variant stock', async () => {
    const store = await addStore(t);
    const tag = `zv${randomUUID().slice(0, 6)}`;
    await createProduct(t, store, {
      name: `${tag} bag`,
      basePrice: '40.00',
      imagePath: null,
      stock: 0,
      variants: [
        { name: 'Base', stock: 2 },
        { name: 'Cheaper', priceOverride: '35.50', stock: 3 },
        { name: 'Dearer', priceOverride: '45.00', stock: 0 },
      ],
    });
    const [card] = (await browse(`q=${tag}`)).products;
    expect(card).toMatchObject({ price: '35.50', stock: 5, image_url: null });
  });

  test('filters by store, by category and by part of the name (case-insensitive, wildcards taken literally)', async () => {
    const store = await addStore(t);
    const other = await addStore(t);
    const books = await newCategory();
    const tag = `zf${randomUUID().slice(0, 6)}`;
    const novel = await createProduct(t, store, { name: `${tag} Novel`, categoryId: books.id });
    const mug = await createProduct(t, store, { name: `${tag} Mug 100%` });
    const foreign = await createProduct(t, other, { name: `${tag} novel too`, categoryId: books.id });

    const ids = async (query: string) => (await browse(query)).products.map((p) => p.id).sort();
    expect(await ids(`storeId=${store.storeId}`)).toEqual([novel.id, mug.id].sort());
    expect(await ids(`categoryId=${books.id}`)).toEqual([novel.id, foreign.id].sort());
    expect(await ids(`categoryId=${books.id}&storeId=${other.storeId}`)).toEqual([foreign.id]);
    expect(await ids(`q=${tag.toUpperCase()}%20NOVEL`)).toEqual([novel.id, foreign.id].sort());
    expect(await ids(`q=${encodeURIComponent(`${tag} Mug 100%`)}`)).toEqual([mug.id]);
    expect(await ids(`q=${encodeURIComponent(`${tag}%`)}`)).toEqual([]);
    expect(await ids(`q=${encodeURIComponent(`${tag}_`)}`)).toEqual([]);
    expect(await ids(`storeId=${randomUUID()}`)).toEqual([]);
  });

  test('pages 20 at a time, newest first', async () => {
    const store = await addStore(t);
    const created = [];
    for (let i = 0; i < 22; i += 1) created.push(await createProduct(t, store, { name: `Paged ${i}` }));
    const newestFirst = created.reverse().map((p) => p.id);

    const first = await browse(`storeId=${store.storeId}`);
    expect(first).toMatchObject({ page: 1, totalPages: 2, total: 22 });
    expect(first.products.map((p) => p.id)).toEqual(newestFirst.slice(0, 20));
    const second = await browse(`storeId=${store.storeId}&page=2`);
    expect(second).toMatchObject({ page: 2, totalPages: 2, total: 22 });
    expect(second.products.map((p) => p.id)).toEqual(newestFirst.slice(20));
    expect(await browse(`storeId=${store.storeId}&page=3`)).toEqual({ products: [], page: 3, totalPages: 2, total: 22 });
  });

  test.each([
    ['page=0', 'page'],
    ['page=10001', 'page'],
    ['page=1.5', 'page'],
    ['storeId=abc', 'storeId'],
    ['categoryId=abc', 'categoryId'],
    [`q=${'x'.repeat(101)}`, 'q'],
    ['page=1&page=2', 'page'],
  ])('answers 400 validation_failed for %s', async (query, path) => {
    const res = await http().get(`${PRODUCTS}?${query}`).set(anonymous()).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain(path);
  });

  test('accepts page 10000 (an empty page)', async () => {
    expect((await browse('page=10000')).products).toEqual([]);
  });
});

describe('GET /catalog/products/{id}', () => {
  test('answers the card with description, category, measures and variants priced (override or base)', async () => {
    const store = await addStore(t, { name: 'Kedai Batik' });
    const fashion = await newCategory();
    const created = await createProduct(t, store, {
      name: 'Batik Tote Bag',
      description: 'Hand-drawn',
      categoryId: fashion.id,
      basePrice: '39.90',
      weightKg: '0.3',
      lengthCm: '40',
      widthCm: '35.5',
      heightCm: '2',
      stock: 0,
      variants: [
        { name: 'Indigo', stock: 20 },
        { name: 'Maroon', priceOverride: '42.90', stock: 15 },
      ],
    });
    const res = await http().get(`${PRODUCTS}/${created.id}`).set(anonymous()).expect(200);
    expect(catalogProductDetail.parse(res.body)).toEqual({
      id: created.id,
      name: 'Batik Tote Bag',
      slug: 'batik-tote-bag',
      price: '39.90',
      image_url: 'http://127.0.0.1:8080/storage/products/kopi.jpg',
      avg_rating: '0.00',
      store_id: store.storeId,
      store_name: 'Kedai Batik',
      stock: 35,
      description: 'Hand-drawn',
      category_id: fashion.id,
      weight_kg: '0.300',
      length_cm: '40.00',
      width_cm: '35.50',
      height_cm: '2.00',
      variants: [
        { id: created.variants[0].id, name: 'Indigo', price: '39.90', stock: 20 },
        { id: created.variants[1].id, name: 'Maroon', price: '42.90', stock: 15 },
      ],
    });
  });

  test.each(['draft', 'archived'])('answers 404 for a %s product', async (status) => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { status });
    const res = await http().get(`${PRODUCTS}/${created.id}`).set(anonymous()).expect(404);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
  });

  test('answers 404 for a live product of a suspended store, and for an unknown id; 400 for a bad id', async () => {
    const store = await addStore(t, { status: 'suspended' });
    const created = await createProduct(t, store);
    await http().get(`${PRODUCTS}/${created.id}`).set(anonymous()).expect(404);
    await http().get(`${PRODUCTS}/${randomUUID()}`).set(anonymous()).expect(404);
    const bad = await http().get(`${PRODUCTS}/nope`).set(anonymous()).expect(400);
    expect(bad.body.code).toBe('validation_failed');
  });
});

describe('catalog access', () => {
  test.each([PRODUCTS, `${PRODUCTS}/${randomUUID()}`, '/api/v1/catalog/categories'])('%s is public: anonymous and any role may read', async (path) => {
    for (const headers of [anonymous(), as('customer'), as('vendor'), as('admin')]) {
      const res = await http().get(path).set(headers);
      expect([200, 404]).toContain(res.status);
    }
  });

  test.each([PRODUCTS, '/api/v1/catalog/categories'])('%s answers 401 without the gateway signature', async (path) => {
    const res = await http().get(path).expect(401);
    expect(res.body.code).toBe('unauthenticated');
  });
});

describe('categories', () => {
  const ADMIN = '/api/v1/admin/categories';

  test('POST /admin/categories answers 201, a Location and {id, name, slug}; both lists show it, by name', async () => {
    const name = `Zz Home & Kitchen ${randomUUID().slice(0, 4)}`;
    const res = await http().post(ADMIN).set(as('admin')).send({ name: `  ${name} ` }).expect(201);
    const created = categorySchema.parse(res.body);
    expect(created).toEqual({ id: expect.any(String), name, slug: `zz-home-kitchen-${name.slice(-4).toLowerCase()}` });
    expect(res.headers.location).toBe(`${ADMIN}/${created.id}`);

    const earlier = await newCategory(`Aa ${randomUUID()}`);

    for (const [path, headers] of [['/api/v1/catalog/categories', anonymous()], [ADMIN, as('admin')]] as const) {
      const list = z.array(categorySchema).parse((await http().get(path).set(headers).expect(200)).body);
      expect(list).toContainEqual(created);
      const ids = list.map((c) => c.id);
      expect(ids.indexOf(earlier.id)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(earlier.id)).toBeLessThan(ids.indexOf(created.id));
    }
  });

  test('answers 409 category_exists for a name (or the slug it makes) that exists, and adds nothing', async () => {
    const name = `Books ${randomUUID().slice(0, 6)}`;
    await http().post(ADMIN).set(as('admin')).send({ name }).expect(201);
    for (const again of [name, name.toLowerCase()]) {
      const res = await http().post(ADMIN).set(as('admin')).send({ name: again }).expect(409);
      expect(res.body).toMatchObject({ status: 409, code: 'category_exists' });
    }
    expect(await t.checkout.prisma.category.count({ where: { name: { equals: name, mode: 'insensitive' } } })).toBe(1);
  });

  test.each([
    ['a blank name', { name: '  ' }],
    ['no name', {}],
    ['a name of 101 characters', { name: 'x'.repeat(101) }],
    ['an unknown field', { name: 'Ok', slug: 'mine' }],
  ])('answers 400 validation_failed for %s', async (_case, body) => {
    const before = await t.checkout.prisma.category.count();
    const res = await http().post(ADMIN).set(as('admin')).send(body).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(await t.checkout.prisma.category.count()).toBe(before);
  });

  test.each(['customer', 'vendor'] as const)('GET and POST /admin/categories answer 403 for the %s role', async (role) => {
    await http().get(ADMIN).set(as(role)).expect(403);
    const name = `Forbidden ${randomUUID()}`;
    await http().post(ADMIN).set(as(role)).send({ name }).expect(403);
    expect(await t.checkout.prisma.category.count({ where: { name } })).toBe(0);
  });

  test('GET and POST /admin/categories answer 401 without the gateway signature or anonymously', async () => {
    await http().get(ADMIN).expect(401);
    await http().post(ADMIN).send({ name: 'X' }).expect(401);
    await http().get(ADMIN).set(anonymous()).expect(401);
    await http().post(ADMIN).set(anonymous()).send({ name: 'X' }).expect(401);
  });
});

describe('PUBLIC_STORAGE_URL', () => {
  const env = { NODE_ENV: 'test', DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres?schema=checkout' };

  test('defaults to the gateway’s /storage and takes an http(s) URL', () => {
    expect(loadConfig(checkoutConfigSchema, env).PUBLIC_STORAGE_URL).toBe('http://127.0.0.1:8080/storage');
    expect(loadConfig(checkoutConfigSchema, { ...env, PUBLIC_STORAGE_URL: 'https://cdn.pasar.test/media' }).PUBLIC_STORAGE_URL).toBe('https://cdn.pasar.test/media');
  });

  test('refuses a value that is not an http(s) URL, naming the variable', () => {
    expect(() => loadConfig(checkoutConfigSchema, { ...env, PUBLIC_STORAGE_URL: 'ftp://files' })).toThrow(ConfigError);
    expect(() => loadConfig(checkoutConfigSchema, { ...env, PUBLIC_STORAGE_URL: 'not a url' })).toThrow(/PUBLIC_STORAGE_URL/);
  });
});
