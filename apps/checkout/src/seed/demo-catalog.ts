import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client';
import { slugify } from '../catalog/rules';

export interface DemoCatalogOptions {
  /** The demo vendor's user id (identity): owner of the store replica row. */
  vendorUserId: string;
  /** The demo store's id (vendor's store, when vendor seeds one: use the same id). */
  storeId: string;
  storeName?: string;
  /** Id of the flat shipping method replica row (vendor's, when it seeds one). */
  shippingMethodId?: string;
}

export interface DemoCatalogResult {
  /** false: the store had products already and nothing was written. */
  seeded: boolean;
  products: number;
}

const DEMO_CATEGORIES = ['Books', 'Electronics', 'Fashion', 'Home & Kitchen'] as const;
type DemoCategory = (typeof DEMO_CATEGORIES)[number];

interface DemoProduct {
  name: string;
  category: DemoCategory;
  basePrice: string;
  stock: number;
  weightKg: string;
  dimensionsCm: [string, string, string];
  description: string;
  variants?: { name: string; priceOverride: string | null; stock: number }[];
}

const DEMO_PRODUCTS: DemoProduct[] = [
  { name: 'Nasi Lemak Cookbook', category: 'Books', basePrice: '45.00', stock: 50, weightKg: '0.600', dimensionsCm: ['24', '17', '2'], description: 'Sixty family recipes, from sambal to kuih.' },
  { name: 'Malay Folk Tales', category: 'Books', basePrice: '32.90', stock: 80, weightKg: '0.350', dimensionsCm: ['20', '13', '1.5'], description: 'Stories of Sang Kancil and friends, illustrated.' },
  { name: 'Wireless Earbuds', category: 'Electronics', basePrice: '129.00', stock: 30, weightKg: '0.150', dimensionsCm: ['10', '8', '4'], description: 'Bluetooth 5.3, 24 hours with the case.' },
  { name: 'Power Bank 10000mAh', category: 'Electronics', basePrice: '89.00', stock: 40, weightKg: '0.250', dimensionsCm: ['14', '7', '1.6'], description: 'USB-C in and out, 20 W fast charge.' },
  {
    name: 'Batik Tote Bag',
    category: 'Fashion',
    basePrice: '39.90',
    stock: 0,
    weightKg: '0.300',
    dimensionsCm: ['40', '35', '2'],
    description: 'Hand-drawn batik on cotton canvas.',
    variants: [
      { name: 'Indigo', priceOverride: null, stock: 20 },
      { name: 'Maroon', priceOverride: '42.90', stock: 15 },
    ],
  },
  { name: 'Kopi Tenom 500g', category: 'Home & Kitchen', basePrice: '28.50', stock: 100, weightKg: '0.520', dimensionsCm: ['18', '10', '6'], description: 'Sabah robusta, medium roast, ground.' },
  { name: 'Rattan Coaster Set', category: 'Home & Kitchen', basePrice: '25.00', stock: 60, weightKg: '0.200', dimensionsCm: ['12', '12', '5'], description: 'Six woven coasters with a holder.' },
];

/**
 * The demo catalog for `npm start` on an empty database: categories, live products with stock,
 * weights and dimensions (one with variants), the platform voucher WELCOME10 (10%, min 20.00,
 * 1000 uses), the KOL code KOL-BOOKS (5% on Books), and a store replica row and an active flat
 * shipping-method replica row for the demo store, so checkout can sell and quote before vendor
 * has published anything. The replica rows carry updatedAt = epoch: vendor's real events win.
 * Idempotent: nothing happens when the store already has products (one transaction, serialised
 * by an advisory lock, so two starts at once seed once).
 */
export async function seedDemoCatalog(prisma: PrismaClient, options: DemoCatalogOptions): Promise<DemoCatalogResult> {
  const { storeId } = options;
  const storeName = options.storeName ?? 'Kedai Demo';
  const replicaTime = new Date(0);
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`demo_catalog:${storeId}`}, 0))`;
    const existing = await tx.product.count({ where: { storeId } });
    if (existing > 0) return { seeded: false, products: existing };

    await tx.storeReplica.createMany({
      data: [{ storeId, ownerUserId: options.vendorUserId, name: storeName, slug: slugify(storeName, 'store'), logoPath: null, status: 'active', updatedAt: replicaTime }],
      skipDuplicates: true,
    });
    if ((await tx.shippingMethodReplica.count({ where: { storeId } })) === 0) {
      await tx.shippingMethodReplica.create({
        data: {
          id: options.shippingMethodId ?? randomUUID(),
          storeId,
          name: 'Standard delivery',
          provider: 'carrier_a',
          type: 'flat',
          rateConfig: { rate: '8.00' },
          estimatedDaysMin: 2,
          estimatedDaysMax: 5,
          isActive: true,
          updatedAt: replicaTime,
        },
      });
    }

    await tx.category.createMany({ data: DEMO_CATEGORIES.map((name) => ({ name, slug: slugify(name, 'category') })), skipDuplicates: true });
    const categories = await tx.category.findMany({ where: { slug: { in: DEMO_CATEGORIES.map((name) => slugify(name, 'category')) } } });
    const categoryId = (name: DemoCategory) => categories.find((c) => c.slug === slugify(name, 'category'))?.id ?? null;

    for (const product of DEMO_PRODUCTS) {
      const [lengthCm, widthCm, heightCm] = product.dimensionsCm;
      await tx.product.create({
        data: {
          storeId,
          categoryId: categoryId(product.category),
          name: product.name,
          slug: slugify(product.name, 'product'),
          description: product.description,
          status: 'live',
          basePrice: product.basePrice,
          stock: product.stock,
          weightKg: product.weightKg,
          lengthCm,
          widthCm,
          heightCm,
          variants: { create: (product.variants ?? []).map((v, index) => ({ ...v, createdAt: new Date(Date.now() + index) })) },
        },
      });
    }

    await tx.voucher.createMany({
      data: [{ code: 'WELCOME10', tier: 'platform', discountType: 'percentage', discountValue: '10.00', minOrderAmount: '20.00', maxUses: 1000, isActive: true }],
      skipDuplicates: true,
    });
    const books = categoryId('Books');
    if (books) {
      await tx.kolCode.createMany({
        data: [{ code: 'KOL-BOOKS', discountType: 'percentage', discountValue: '5.00', categoryId: books, isActive: true }],
        skipDuplicates: true,
      });
    }
    return { seeded: true, products: DEMO_PRODUCTS.length };
  }, { timeout: 30_000 });
}
