import { randomUUID } from 'node:crypto';
import { catalogProductPage } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import { applyStoreUpserted } from '../stores/events';
import { storeOfOwner } from '../stores/stores';
import { seedDemoCatalog } from './demo-catalog';

let t: TestCheckout;

beforeAll(async () => {
  t = await startTestCheckout();
});
afterAll(async () => {
  await t?.stop();
});

const prisma = () => t.checkout.prisma;

async function catalogOf(storeId: string) {
  const res = await request(t.checkout.url).get(`/api/v1/catalog/products?storeId=${storeId}`).set(signedHeaders(null)).expect(200);
  return catalogProductPage.parse(res.body);
}

test('seeds live products with stock, weights and dimensions that the public catalog shows', async () => {
  const vendorUserId = randomUUID();
  const storeId = randomUUID();
  const shippingMethodId = randomUUID();
  expect(await seedDemoCatalog(prisma(), { vendorUserId, storeId, storeName: 'Kedai Demo', shippingMethodId })).toEqual({ seeded: true, products: 7 });

  const page = await catalogOf(storeId);
  expect(page.total).toBe(7);
  expect(page.products.every((p) => p.store_name === 'Kedai Demo' && p.stock > 0)).toBe(true);
  const products = await prisma().product.findMany({ where: { storeId }, include: { variants: true } });
  expect(products.every((p) => p.status === 'live' && p.weightKg && p.lengthCm && p.widthCm && p.heightCm && p.categoryId)).toBe(true);
  expect(products.filter((p) => p.variants.length > 0)).toHaveLength(1);

  expect(await storeOfOwner(prisma(), vendorUserId)).toMatchObject({ storeId, status: 'active', name: 'Kedai Demo' });
  expect(await prisma().shippingMethodReplica.findMany({ where: { storeId } })).toEqual([
    expect.objectContaining({ id: shippingMethodId, type: 'flat', rateConfig: { rate: '8.00' }, isActive: true }),
  ]);
  const books = await prisma().category.findUniqueOrThrow({ where: { name: 'Books' } });
  expect(await prisma().voucher.findUnique({ where: { code: 'WELCOME10' } })).toMatchObject({
    tier: 'platform',
    discountType: 'percentage',
    maxUses: 1000,
    usedCount: 0,
    isActive: true,
  });
  const voucher = await prisma().voucher.findUniqueOrThrow({ where: { code: 'WELCOME10' } });
  expect([voucher.discountValue.toFixed(2), voucher.minOrderAmount.toFixed(2)]).toEqual(['10.00', '20.00']);
  const kol = await prisma().kolCode.findUniqueOrThrow({ where: { code: 'KOL-BOOKS' } });
  expect([kol.discountType, kol.discountValue.toFixed(2), kol.categoryId, kol.isActive]).toEqual(['percentage', '5.00', books.id, true]);
});

test('is idempotent: a second run, or two at once, adds nothing', async () => {
  const options = { vendorUserId: randomUUID(), storeId: randomUUID() };
  const counts = async () => ({
    products: await prisma().product.count({ where: { storeId: options.storeId } }),
    variants: await prisma().productVariant.count({ where: { product: { storeId: options.storeId } } }),
    methods: await prisma().shippingMethodReplica.count({ where: { storeId: options.storeId } }),
    categories: await prisma().category.count(),
    vouchers: await prisma().voucher.count(),
    kolCodes: await prisma().kolCode.count(),
  });

  const results = await Promise.all([seedDemoCatalog(prisma(), options), seedDemoCatalog(prisma(), options)]);
  expect(results.map((r) => r.seeded).sort()).toEqual([false, true]);
  const after = await counts();
  expect(after).toMatchObject({ products: 7, variants: 2, methods: 1 });

  expect(await seedDemoCatalog(prisma(), options)).toEqual({ seeded: false, products: 7 });
  expect(await counts()).toEqual(after);
});

test('does nothing for a store that already has products', async () => {
  const storeId = randomUUID();
  await prisma().product.create({ data: { storeId, name: 'Own', slug: 'own', basePrice: '1.00' } });
  expect(await seedDemoCatalog(prisma(), { vendorUserId: randomUUID(), storeId })).toEqual({ seeded: false, products: 1 });
  expect(await prisma().product.count({ where: { storeId } })).toBe(1);
  expect(await prisma().storeReplica.findUnique({ where: { storeId } })).toBeNull();
});

test("vendor's real store event wins over the seeded replica rows", async () => {
  const storeId = randomUUID();
  const vendorUserId = randomUUID();
  await seedDemoCatalog(prisma(), { vendorUserId, storeId });
  await prisma().$transaction((tx) =>
    applyStoreUpserted(tx, { storeId, ownerUserId: vendorUserId, name: 'Kedai Sebenar', slug: 'kedai-sebenar', logoPath: null, status: 'active', updatedAt: '2026-01-01T00:00:00.000Z' }),
  );
  expect(await prisma().storeReplica.findUnique({ where: { storeId } })).toMatchObject({ name: 'Kedai Sebenar' });
  expect((await catalogOf(storeId)).products[0].store_name).toBe('Kedai Sebenar');
});
