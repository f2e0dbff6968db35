import { randomUUID } from 'node:crypto';
import { MAX_STOCK, MAX_VARIANTS_PER_PRODUCT, vendorProduct, vendorProductPage } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { z } from 'zod';
import { useTestCheckout } from '../../test/checkout';
import { addStore, as, createProduct, orderHolding, productBody } from './test-fixtures';

const BASE = '/api/v1/vendor/products';
const t = useTestCheckout();

const http = () => request(t.checkout.url);
const productsOfStore = (storeId: string) => t.checkout.prisma.product.findMany({ where: { storeId }, include: { variants: true } });
const errorPaths = (body: { errors?: { path: (string | number)[] }[] }) => (body.errors ?? []).map((e) => e.path.join('.'));

describe('POST /vendor/products', () => {
  test('answers 201, a Location and the created product of the caller’s store', async () => {
    const store = await addStore(t);
    const category = await t.checkout.prisma.category.create({ data: { name: `Coffee ${randomUUID()}`, slug: `coffee-${randomUUID()}` } });
    const res = await http()
      .post(BASE)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ name: 'Kopi Tenom 500g', categoryId: category.id }))
      .expect(201);
    const product = vendorProduct.parse(res.body);
    expect(res.headers.location).toBe(`${BASE}/${product.id}`);
    expect(product).toEqual({
      id: expect.any(String),
      storeId: store.storeId,
      categoryId: category.id,
      name: 'Kopi Tenom 500g',
      slug: 'kopi-tenom-500g',
      description: 'Sabah robusta',
      status: 'live',
      basePrice: '28.50',
      imagePath: 'products/kopi.jpg',
      imageUrl: 'http://127.0.0.1:8080/storage/products/kopi.jpg',
      weightKg: '0.520',
      lengthCm: '18.00',
      widthCm: '10.00',
      heightCm: '6.00',
      stock: 12,
      stockVersion: expect.stringMatching(/^[0-9a-f]{16}$/),
      avgRating: '0.00',
      variants: [],
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(await productsOfStore(store.storeId)).toHaveLength(1);
  });

  test('fills the defaults: draft, no description, no category, no image or measures, stock 0', async () => {
    const store = await addStore(t);
    const res = await http().post(BASE).set(as('vendor', store.ownerUserId)).send({ name: 'Plain', basePrice: 0 }).expect(201);
    expect(res.body).toMatchObject({
      status: 'draft',
      description: '',
      categoryId: null,
      basePrice: '0.00',
      imagePath: null,
      imageUrl: null,
      weightKg: null,
      lengthCm: null,
      stock: 0,
      variants: [],
    });
  });

  test('takes prices and measures as JSON numbers too', async () => {
    const store = await addStore(t);
    const product = await createProduct(t, store, { basePrice: 12.5, weightKg: 1.25, lengthCm: 30, stock: 0, variants: [{ name: 'Big', priceOverride: 19.9, stock: 3 }] });
    expect(product).toMatchObject({ basePrice: '12.50', weightKg: '1.250', lengthCm: '30.00' });
    expect(product.variants).toEqual([{ id: expect.any(String), name: 'Big', priceOverride: '19.90', stock: 3 }]);
  });

  test('creates the variants in the order sent, with or without a price override', async () => {
    const store = await addStore(t);
    const product = await createProduct(t, store, {
      stock: 0,
      variants: [
        { name: 'Small', stock: 1 },
        { name: 'Medium', priceOverride: '30.00', stock: 2 },
        { name: 'Large', priceOverride: null, stock: 3 },
      ],
    });
    expect(product.variants.map((v) => [v.name, v.priceOverride, v.stock])).toEqual([
      ['Small', null, 1],
      ['Medium', '30.00', 2],
      ['Large', null, 3],
    ]);
  });

  test('makes the slug unique in the store with -2, -3; another store starts again at the plain slug', async () => {
    const store = await addStore(t);
    const other = await addStore(t);
    const slugs = [];
    for (let i = 0; i < 3; i += 1) slugs.push((await createProduct(t, store, { name: 'Batik Tote Bag' })).slug);
    expect(slugs).toEqual(['batik-tote-bag', 'batik-tote-bag-2', 'batik-tote-bag-3']);
    expect((await createProduct(t, other, { name: 'Batik Tote Bag' })).slug).toBe('batik-tote-bag');
  });

  test('concurrent creates with one name in one store all get a distinct slug', async () => {
    const store = await addStore(t);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => http().post(BASE).set(as('vendor', store.ownerUserId)).send(productBody({ name: 'Hot Item' }))),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    const slugs = (await productsOfStore(store.storeId)).map((p) => p.slug).sort();
    expect(slugs).toEqual(['hot-item', ...[2, 3, 4, 5, 6, 7, 8].map((n) => `hot-item-${n}`)].sort());
  });

  test('accepts the limits: stock 1,000,000 and 50 variants', async () => {
    const store = await addStore(t);
    await createProduct(t, store, { stock: MAX_STOCK });
    const variants = Array.from({ length: MAX_VARIANTS_PER_PRODUCT }, (_, i) => ({ name: `V${i}`, stock: MAX_STOCK }));
    const product = await createProduct(t, store, { stock: 0, variants });
    expect(product.variants).toHaveLength(MAX_VARIANTS_PER_PRODUCT);
  });

  test('answers 400 unknown_category for a category that does not exist, and writes nothing', async () => {
    const store = await addStore(t);
    const res = await http().post(BASE).set(as('vendor', store.ownerUserId)).send(productBody({ categoryId: randomUUID() })).expect(400);
    expect(res.body).toMatchObject({ status: 400, code: 'unknown_category' });
    expect(await productsOfStore(store.storeId)).toEqual([]);
  });

  test('answers 400 unknown_variant for a variant id on create, and writes nothing', async () => {
    const store = await addStore(t);
    const res = await http()
      .post(BASE)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ stock: 0, variants: [{ id: randomUUID(), name: 'Ghost', stock: 1 }] }))
      .expect(400);
    expect(res.body.code).toBe('unknown_variant');
    expect(await productsOfStore(store.storeId)).toEqual([]);
  });

  const variant = { name: 'V', stock: 1 };
  const sameId = randomUUID();
  test.each([
    ['a negative price', { basePrice: '-1.00' }, 'basePrice'],
    ['a price with 3 decimals', { basePrice: '1.005' }, 'basePrice'],
    ['a price as a number with 3 decimals', { basePrice: 1.005 }, 'basePrice'],
    ['a price that is not a number', { basePrice: 'ten' }, 'basePrice'],
    ['a price of 11 digits', { basePrice: '12345678901' }, 'basePrice'],
    ['a missing price', { basePrice: undefined }, 'basePrice'],
    ['a negative variant price override', { stock: 0, variants: [{ ...variant, priceOverride: '-0.01' }] }, 'variants.0.priceOverride'],
    ['a negative stock', { stock: -1 }, 'stock'],
    ['a fractional stock', { stock: 1.5 }, 'stock'],
    ['a stock over 1,000,000', { stock: MAX_STOCK + 1 }, 'stock'],
    ['a variant stock over 1,000,000', { stock: 0, variants: [{ ...variant, stock: MAX_STOCK + 1 }] }, 'variants.0.stock'],
    ['51 variants', { stock: 0, variants: Array.from({ length: MAX_VARIANTS_PER_PRODUCT + 1 }, () => variant) }, 'variants'],
    ['product stock next to variants', { stock: 5, variants: [variant] }, 'stock'],
    ['one variant id twice', { stock: 0, variants: [{ ...variant, id: sameId }, { ...variant, id: sameId }] }, 'variants.1.id'],
    ['a blank variant name', { stock: 0, variants: [{ ...variant, name: ' ' }] }, 'variants.0.name'],
    ['a weight of zero', { weightKg: '0.000' }, 'weightKg'],
    ['a weight with 4 decimals', { weightKg: '0.1234' }, 'weightKg'],
    ['a negative length', { lengthCm: -3 }, 'lengthCm'],
    ['an image path climbing out of storage', { imagePath: 'products/../../secret' }, 'imagePath'],
    ['an absolute image URL', { imagePath: 'https://evil.test/a.jpg' }, 'imagePath'],
    ['an unknown status', { status: 'deleted' }, 'status'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a category id that is not a uuid', { categoryId: 'books' }, 'categoryId'],
    ['a field the contract does not know', { colour: 'red' }, ''],
  ])('answers 400 validation_failed for %s, and writes nothing', async (_case, overrides, path) => {
    const store = await addStore(t);
    const res = await http().post(BASE).set(as('vendor', store.ownerUserId)).send(productBody(overrides)).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    if (path) expect(errorPaths(res.body)).toContain(path);
    expect(await productsOfStore(store.storeId)).toEqual([]);
  });
});

describe('GET /vendor/products', () => {
  test("lists only the caller's store's products, every status, newest first, 20 a page", async () => {
    const store = await addStore(t);
    const other = await addStore(t);
    await createProduct(t, other, { name: 'Not mine' });
    const statuses = ['draft', 'live', 'archived'];
    const created = [];
    for (let i = 0; i < 23; i += 1) created.push(await createProduct(t, store, { name: `Item ${i}`, status: statuses[i % 3] }));

    const first = vendorProductPage.parse((await http().get(BASE).set(as('vendor', store.ownerUserId)).expect(200)).body);
    expect(first).toMatchObject({ page: 1, totalPages: 2, total: 23 });
    expect(first.products.map((p) => p.name)).toEqual(created.slice(3).reverse().map((p) => p.name));
    const second = vendorProductPage.parse((await http().get(`${BASE}?page=2`).set(as('vendor', store.ownerUserId)).expect(200)).body);
    expect(second.products.map((p) => p.id)).toEqual(created.slice(0, 3).reverse().map((p) => p.id));
    expect(new Set([...first.products, ...second.products].map((p) => p.status))).toEqual(new Set(statuses));
    expect([...first.products, ...second.products].every((p) => p.storeId === store.storeId)).toBe(true);
  });

  test('answers an empty page for a store without products', async () => {
    const store = await addStore(t);
    const res = await http().get(BASE).set(as('vendor', store.ownerUserId)).expect(200);
    expect(res.body).toEqual({ products: [], page: 1, totalPages: 0, total: 0 });
  });

  test.each(['0', '10001', 'two'])('answers 400 for page=%s', async (page) => {
    const store = await addStore(t);
    const res = await http().get(`${BASE}?page=${page}`).set(as('vendor', store.ownerUserId)).expect(400);
    expect(errorPaths(res.body)).toContain('page');
  });
});

describe('PUT /vendor/products/{id}', () => {
  test('answers 200 with the product, its fields replaced', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store);
    const res = await http()
      .put(`${BASE}/${created.id}`)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ description: 'Now dark roast', basePrice: '30.00', status: 'draft', imagePath: null, weightKg: null, stock: 3, stockVersion: created.stockVersion }))
      .expect(200);
    const product = vendorProduct.parse(res.body);
    expect(product).toMatchObject({
      id: created.id,
      slug: created.slug,
      description: 'Now dark roast',
      basePrice: '30.00',
      status: 'draft',
      imagePath: null,
      imageUrl: null,
      weightKg: null,
      stock: 3,
    });
    expect(product.createdAt).toBe(created.createdAt);
  });

  test('a new name gets a new slug unique in the store; keeping the name keeps the slug', async () => {
    const store = await addStore(t);
    await createProduct(t, store, { name: 'Rattan Coaster' });
    const renamed = await createProduct(t, store, { name: 'Something' });
    const put = (id: string, name: string) => http().put(`${BASE}/${id}`).set(as('vendor', store.ownerUserId)).send(productBody({ name })).expect(200);
    expect((await put(renamed.id, 'Rattan Coaster')).body.slug).toBe('rattan-coaster-2');
    expect((await put(renamed.id, 'Rattan Coaster')).body.slug).toBe('rattan-coaster-2');
    expect((await put(renamed.id, 'Rattan Mat')).body.slug).toBe('rattan-mat');
  });

  test('the variant list replaces the current one: ids kept and updated, new ones created, missing ones deleted', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, {
      stock: 0,
      variants: [
        { name: 'Red', stock: 1 },
        { name: 'Blue', stock: 2 },
        { name: 'Green', stock: 3 },
      ],
    });
    const [red, blue, green] = created.variants;
    const res = await http()
      .put(`${BASE}/${created.id}`)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ stock: 0, stockVersion: created.stockVersion, variants: [{ id: blue.id, name: 'Navy', priceOverride: '31.00', stock: 9 }, { name: 'Black', stock: 4 }, { id: red.id, name: 'Red', stock: 0 }] }))
      .expect(200);
    const product = vendorProduct.parse(res.body);
    expect(product.variants).toEqual([
      { id: red.id, name: 'Red', priceOverride: null, stock: 0 },
      { id: blue.id, name: 'Navy', priceOverride: '31.00', stock: 9 },
      { id: expect.any(String), name: 'Black', priceOverride: null, stock: 4 },
    ]);
    expect(await t.checkout.prisma.productVariant.findUnique({ where: { id: green.id } })).toBeNull();
  });

  test('an empty variant list turns it into a product with its own stock', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { stock: 0, variants: [{ name: 'Only', stock: 5 }] });
    const res = await http().put(`${BASE}/${created.id}`).set(as('vendor', store.ownerUserId)).send(productBody({ stock: 7, variants: [], stockVersion: created.stockVersion })).expect(200);
    expect(res.body).toMatchObject({ stock: 7, variants: [] });
    expect(await t.checkout.prisma.productVariant.count({ where: { productId: created.id } })).toBe(0);
  });

  test('answers 409 variant_in_use when the list leaves out a variant an order holds, and changes nothing', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { stock: 0, variants: [{ name: 'Sold', stock: 1 }, { name: 'Unsold', stock: 1 }] });
    const [sold, unsold] = created.variants;
    await orderHolding(t, created, sold.id);
    const res = await http()
      .put(`${BASE}/${created.id}`)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ name: 'Renamed', stock: 0, stockVersion: created.stockVersion, variants: [{ id: unsold.id, name: 'Unsold', stock: 8 }] }))
      .expect(409);
    expect(res.body).toMatchObject({ status: 409, code: 'variant_in_use' });
    expect(res.body.detail).toContain(sold.id);
    const after = await t.checkout.prisma.product.findUniqueOrThrow({ where: { id: created.id }, include: { variants: true } });
    expect(after.name).toBe(created.name);
    expect(after.variants.map((v) => [v.id, v.stock]).sort()).toEqual([[sold.id, 1], [unsold.id, 1]].sort());

    // keeping it (stock 0 stops its sales) is fine
    await http()
      .put(`${BASE}/${created.id}`)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ stock: 0, stockVersion: created.stockVersion, variants: [{ id: sold.id, name: 'Sold', stock: 0 }] }))
      .expect(200);
    expect(await t.checkout.prisma.productVariant.findMany({ where: { productId: created.id } })).toEqual([expect.objectContaining({ id: sold.id, stock: 0 })]);
  });

  test('an edit that leaves the stock values as they are needs no stockVersion', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { stock: 5 });
    const res = await http().put(`${BASE}/${created.id}`).set(as('vendor', store.ownerUserId)).send(productBody({ name: 'Only renamed', stock: 5 })).expect(200);
    expect(res.body).toMatchObject({ name: 'Only renamed', stock: 5, stockVersion: created.stockVersion });
  });

  test('answers 409 stock_version_required for a stock change without the stockVersion, and changes nothing', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { stock: 0, variants: [{ name: 'Red', stock: 5 }] });
    const [red] = created.variants;
    const bodies = [productBody({ stock: 9, variants: [] }), productBody({ stock: 0, variants: [{ id: red.id, name: 'Red', stock: 9 }] })];
    for (const body of bodies) {
      const res = await http().put(`${BASE}/${created.id}`).set(as('vendor', store.ownerUserId)).send(body).expect(409);
      expect(res.body).toMatchObject({ status: 409, code: 'stock_version_required' });
    }
    expect((await t.checkout.prisma.productVariant.findUniqueOrThrow({ where: { id: red.id } })).stock).toBe(5);
  });

  test('a sale between reading and editing is never undone: 409 stock_changed, then the edit on the fresh read goes through', async () => {
    const store = await addStore(t);
    const read = await createProduct(t, store, { stock: 10 });
    // a concurrent sale takes 3 (as submit does: a conditional decrement)
    await t.checkout.prisma.$executeRaw`UPDATE product SET stock = stock - 3 WHERE id = ${read.id}::uuid AND stock >= 3`;
    const stale = await http()
      .put(`${BASE}/${read.id}`)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ name: 'Renamed', stock: 10, stockVersion: read.stockVersion }))
      .expect(409);
    expect(stale.body).toMatchObject({ status: 409, code: 'stock_changed' });
    expect(await t.checkout.prisma.product.findUniqueOrThrow({ where: { id: read.id } })).toMatchObject({ stock: 7, name: read.name });

    const list = await http().get(BASE).set(as('vendor', store.ownerUserId)).expect(200);
    const fresh = vendorProduct.parse(list.body.products.find((p: { id: string }) => p.id === read.id));
    expect(fresh.stock).toBe(7);
    const res = await http()
      .put(`${BASE}/${read.id}`)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ name: 'Renamed', stock: 20, stockVersion: fresh.stockVersion }))
      .expect(200);
    expect(res.body).toMatchObject({ name: 'Renamed', stock: 20 });
    expect(res.body.stockVersion).not.toBe(fresh.stockVersion);
  });

  test('edits racing real sales: no sold unit is ever put back', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { stock: 100 });
    let version = created.stockVersion;
    let sold = 0;
    let restocked = 0;
    const sell = async () => {
      for (let i = 0; i < 20; i += 1) {
        const n = await t.checkout.prisma.$executeRaw`UPDATE product SET stock = stock - 1 WHERE id = ${created.id}::uuid AND stock >= 1`;
        sold += n;
      }
    };
    const restock = async () => {
      for (let i = 0; i < 20; i += 1) {
        // the vendor adds 5 to what it last read
        const current = await t.checkout.prisma.product.findUniqueOrThrow({ where: { id: created.id } });
        const res = await http()
          .put(`${BASE}/${created.id}`)
          .set(as('vendor', store.ownerUserId))
          .send(productBody({ stock: current.stock + 5, stockVersion: version }));
        if (res.status === 200) {
          restocked += 5;
          version = res.body.stockVersion;
        } else {
          expect(res.body.code).toBe('stock_changed');
          const list = await http().get(BASE).set(as('vendor', store.ownerUserId)).expect(200);
          version = list.body.products.find((p: { id: string }) => p.id === created.id).stockVersion;
        }
      }
    };
    await Promise.all([sell(), restock()]);
    const after = await t.checkout.prisma.product.findUniqueOrThrow({ where: { id: created.id } });
    expect(after.stock).toBe(100 - sold + restocked);
  });

  test("answers 400 unknown_variant for another product's variant id, and changes nothing", async () => {
    const store = await addStore(t);
    const mine = await createProduct(t, store, { stock: 0, variants: [{ name: 'Mine', stock: 1 }] });
    const other = await createProduct(t, store, { stock: 0, variants: [{ name: 'Theirs', stock: 1 }] });
    const res = await http()
      .put(`${BASE}/${mine.id}`)
      .set(as('vendor', store.ownerUserId))
      .send(productBody({ stock: 0, variants: [{ id: other.variants[0].id, name: 'Stolen', stock: 5 }] }))
      .expect(400);
    expect(res.body.code).toBe('unknown_variant');
    expect(await t.checkout.prisma.productVariant.findMany({ where: { productId: { in: [mine.id, other.id] } }, orderBy: { name: 'asc' } })).toEqual([
      expect.objectContaining({ productId: mine.id, name: 'Mine' }),
      expect.objectContaining({ productId: other.id, name: 'Theirs', stock: 1 }),
    ]);
  });

  test('answers 400 unknown_category and changes nothing', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store);
    const res = await http().put(`${BASE}/${created.id}`).set(as('vendor', store.ownerUserId)).send(productBody({ name: 'New', categoryId: randomUUID() })).expect(400);
    expect(res.body.code).toBe('unknown_category');
    expect((await t.checkout.prisma.product.findUniqueOrThrow({ where: { id: created.id } })).name).toBe(created.name);
  });

  test('answers 400 validation_failed for a bad body and changes nothing', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store);
    const res = await http().put(`${BASE}/${created.id}`).set(as('vendor', store.ownerUserId)).send(productBody({ name: 'New', basePrice: '-5' })).expect(400);
    expect(errorPaths(res.body)).toContain('basePrice');
    expect((await t.checkout.prisma.product.findUniqueOrThrow({ where: { id: created.id } })).name).toBe(created.name);
  });
});

describe('DELETE /vendor/products/{id}', () => {
  test('answers 204 and deletes the product and its variants', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { stock: 0, variants: [{ name: 'A', stock: 1 }] });
    const res = await http().delete(`${BASE}/${created.id}`).set(as('vendor', store.ownerUserId)).expect(204);
    expect(res.text).toBe('');
    expect(await t.checkout.prisma.product.findUnique({ where: { id: created.id } })).toBeNull();
    expect(await t.checkout.prisma.productVariant.count({ where: { productId: created.id } })).toBe(0);
  });

  test('answers 204 and archives instead when an order item holds the product', async () => {
    const store = await addStore(t);
    const created = await createProduct(t, store, { status: 'live' });
    await orderHolding(t, created);
    await http().delete(`${BASE}/${created.id}`).set(as('vendor', store.ownerUserId)).expect(204);
    expect(await t.checkout.prisma.product.findUnique({ where: { id: created.id } })).toMatchObject({ status: 'archived' });
    await http().get(`/api/v1/catalog/products/${created.id}`).set(as('customer')).expect(404);
  });
});

describe('who may call the vendor product endpoints', () => {
  const endpoints = [
    ['GET', ''],
    ['POST', ''],
    ['PUT', '/:id'],
    ['DELETE', '/:id'],
  ] as const;

  function call(method: (typeof endpoints)[number][0], path: string) {
    const url = `${BASE}${path}`;
    switch (method) {
      case 'GET':
        return http().get(url);
      case 'POST':
        return http().post(url).send(productBody());
      case 'PUT':
        return http().put(url).send(productBody({ name: 'Taken over' }));
      case 'DELETE':
        return http().delete(url);
    }
  }

  async function ownedProduct() {
    const store = await addStore(t);
    return { store, product: await createProduct(t, store) };
  }

  test.each(endpoints)('%s %s answers 401 without the gateway signature', async (method, path) => {
    const res = await call(method, path.replace(':id', randomUUID()));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  test.each(endpoints.flatMap(([method, path]) => (['customer', 'admin'] as const).map((role) => [method, path, role] as const)))(
    '%s %s answers 403 for the %s role and changes nothing',
    async (method, path, role) => {
      const { store, product } = await ownedProduct();
      const res = await call(method, path.replace(':id', product.id)).set(signedHeaders({ userId: store.ownerUserId, role }));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      expect(await productsOfStore(store.storeId)).toEqual([expect.objectContaining({ id: product.id, name: product.name, status: product.status })]);
    },
  );

  test.each(endpoints)('%s %s answers 403 no_store for a vendor without a store', async (method, path) => {
    const { product } = await ownedProduct();
    const res = await call(method, path.replace(':id', product.id)).set(as('vendor'));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 403, code: 'no_store' });
  });

  test.each(endpoints.filter(([, path]) => path !== ''))("%s %s answers 404 for another store's product and changes nothing", async (method, path) => {
    const { store, product } = await ownedProduct();
    const intruder = await addStore(t);
    const res = await call(method, path.replace(':id', product.id)).set(as('vendor', intruder.ownerUserId));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect(await productsOfStore(store.storeId)).toEqual([expect.objectContaining({ id: product.id, name: product.name, status: product.status })]);
  });

  test.each(endpoints.filter(([, path]) => path !== ''))('%s %s answers 404 for an unknown id and 400 for an id that is not a uuid', async (method, path) => {
    const store = await addStore(t);
    expect((await call(method, path.replace(':id', randomUUID())).set(as('vendor', store.ownerUserId))).status).toBe(404);
    const bad = await call(method, path.replace(':id', 'nope')).set(as('vendor', store.ownerUserId));
    expect(bad.status).toBe(400);
    expect(errorPaths(bad.body)).toContain('id');
  });

  test('the GET list never shows another store’s products', async () => {
    const { product } = await ownedProduct();
    const intruder = await addStore(t);
    const res = await http().get(BASE).set(as('vendor', intruder.ownerUserId)).expect(200);
    expect(z.array(z.object({ id: z.string() })).parse(res.body.products).map((p) => p.id)).not.toContain(product.id);
  });
});
