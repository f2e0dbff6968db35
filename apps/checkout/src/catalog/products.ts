import { CATALOG_PAGE_SIZE, type VendorProductBody } from '@pasar/contracts';
import { badRequest, conflict, notFound } from '@pasar/service-kit';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { requireOwnStore } from '../stores/stores';
import { nextFreeSlug, pageCount, planVariants, slugify, stockEditRefusal } from './rules';

/** What the vendor's catalog use cases need. */
export interface VendorCatalogDeps {
  prisma: PrismaClient;
}

type Tx = Prisma.TransactionClient;

/** A product with its variants in the order the vendor created them. */
export const withVariants = { variants: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } } satisfies Prisma.ProductInclude;
export type ProductWithVariants = Prisma.ProductGetPayload<{ include: typeof withVariants }>;

export interface ProductPage<T> {
  items: T[];
  page: number;
  totalPages: number;
  total: number;
}

/** The caller's store's products, every status, newest first. */
export async function listOwnProducts({ prisma }: VendorCatalogDeps, ownerUserId: string, page: number): Promise<ProductPage<ProductWithVariants>> {
  const store = await requireOwnStore(prisma, ownerUserId);
  const where = { storeId: store.storeId };
  const [total, items] = await Promise.all([
    prisma.product.count({ where }),
    prisma.product.findMany({
      where,
      include: withVariants,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * CATALOG_PAGE_SIZE,
      take: CATALOG_PAGE_SIZE,
    }),
  ]);
  return { items, page, totalPages: pageCount(total, CATALOG_PAGE_SIZE), total };
}

/** Adds a product (and its variants) to the caller's store, with a slug unique in the store. */
export async function createProduct({ prisma }: VendorCatalogDeps, ownerUserId: string, body: VendorProductBody): Promise<ProductWithVariants> {
  const store = await requireOwnStore(prisma, ownerUserId);
  return prisma.$transaction(async (tx) => {
    await requireKnownCategory(tx, body.categoryId);
    const unknown = planVariants([], body.variants).unknown;
    if (unknown.length) throw unknownVariants(unknown);
    const slug = await allocateSlug(tx, store.storeId, body.name);
    const { id } = await tx.product.create({ data: { storeId: store.storeId, slug, ...productFields(body) }, select: { id: true } });
    await createVariants(tx, id, body.variants);
    return tx.product.findUniqueOrThrow({ where: { id }, include: withVariants });
  });
}

/**
 * Replaces a product of the caller's store. The variant list replaces the current one: ids given
 * are kept and updated, entries without an id are created, the others deleted; deleting one that
 * an order item holds answers 409 `variant_in_use` and changes nothing. A new name gets a new slug.
 */
export async function updateProduct(
  { prisma }: VendorCatalogDeps,
  ownerUserId: string,
  productId: string,
  body: VendorProductBody,
): Promise<ProductWithVariants> {
  const store = await requireOwnStore(prisma, ownerUserId);
  return prisma.$transaction(async (tx) => {
    const current = await lockOwnProduct(tx, store.storeId, productId);
    const refusal = stockEditRefusal(current, body);
    if (refusal === 'stock_changed') {
      throw conflict('stock_changed', 'the stock changed since you read it (a sale or another edit): read the product again and resend with its stockVersion');
    }
    if (refusal === 'stock_version_required') {
      throw conflict('stock_version_required', 'changing stock needs the stockVersion you read with it, so a sale made meanwhile is not undone');
    }
    await requireKnownCategory(tx, body.categoryId);
    const plan = planVariants(current.variantIds, body.variants);
    if (plan.unknown.length) throw unknownVariants(plan.unknown);
    const ordered = await tx.orderItem.findMany({ where: { variantId: { in: plan.remove } }, distinct: ['variantId'], select: { variantId: true } });
    if (ordered.length) {
      throw conflict('variant_in_use', `orders hold these variants; keep them (stock 0 stops sales): ${ordered.map((o) => o.variantId).join(', ')}`);
    }
    await tx.productVariant.deleteMany({ where: { id: { in: plan.remove } } });
    for (const variant of plan.keep) {
      await tx.productVariant.update({ where: { id: variant.id }, data: variantFields(variant) });
    }
    await createVariants(tx, productId, plan.create);
    const slug = body.name === current.name ? current.slug : await allocateSlug(tx, store.storeId, body.name, productId);
    await tx.product.update({ where: { id: productId }, data: { slug, ...productFields(body) } });
    return tx.product.findUniqueOrThrow({ where: { id: productId }, include: withVariants });
  });
}

/**
 * Removes a product of the caller's store. One that an order item holds is archived instead (it
 * leaves the catalog, the order history keeps pointing at it).
 */
export async function removeProduct({ prisma }: VendorCatalogDeps, ownerUserId: string, productId: string): Promise<'deleted' | 'archived'> {
  const store = await requireOwnStore(prisma, ownerUserId);
  return prisma.$transaction(async (tx) => {
    await lockOwnProduct(tx, store.storeId, productId);
    const ordered = await tx.orderItem.findFirst({ where: { productId }, select: { id: true } });
    if (ordered) {
      await tx.product.update({ where: { id: productId }, data: { status: 'archived' } });
      return 'archived';
    }
    await tx.product.delete({ where: { id: productId } });
    return 'deleted';
  });
}

/**
 * Locks the product row and its variant rows (as a submit's stock update would), so no order can
 * take them between our check of order items and our write. Another store's product: 404.
 */
async function lockOwnProduct(
  tx: Tx,
  storeId: string,
  productId: string,
): Promise<{ name: string; slug: string; stock: number; variantIds: string[]; variants: { id: string; stock: number }[] }> {
  const [product] = await tx.$queryRaw<{ name: string; slug: string; stock: number }[]>`
    SELECT name, slug, stock FROM product WHERE id = ${productId}::uuid AND store_id = ${storeId}::uuid FOR UPDATE`;
  if (!product) throw notFound('product');
  const variants = await tx.$queryRaw<{ id: string; stock: number }[]>`
    SELECT id::text AS id, stock FROM product_variant WHERE product_id = ${productId}::uuid ORDER BY id FOR UPDATE`;
  return { ...product, variantIds: variants.map((v) => v.id), variants };
}

async function requireKnownCategory(tx: Tx, categoryId: string | null | undefined): Promise<void> {
  if (!categoryId) return;
  const found = await tx.category.findUnique({ where: { id: categoryId }, select: { id: true } });
  if (!found) throw badRequest('unknown_category', `no category ${categoryId}`);
}

function unknownVariants(ids: string[]) {
  return badRequest('unknown_variant', `not a variant of this product: ${ids.join(', ')}`);
}

/**
 * The slug for `name` in the store: the name's slug, or with -2, -3, ... when another product of
 * the store holds it. A per-store advisory lock makes concurrent writers take turns.
 */
async function allocateSlug(tx: Tx, storeId: string, name: string, productId?: string): Promise<string> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`product_slug:${storeId}`}, 0))`;
  const base = slugify(name, 'product');
  const holders = await tx.product.findMany({
    where: { storeId, ...(productId ? { id: { not: productId } } : {}), OR: [{ slug: base }, { slug: { startsWith: `${base}-` } }] },
    select: { slug: true },
  });
  return nextFreeSlug(base, new Set(holders.map((p) => p.slug)));
}

/** Creates variants keeping the request's order (each a millisecond later than the one before). */
async function createVariants(tx: Tx, productId: string, variants: VendorProductBody['variants']): Promise<void> {
  if (variants.length === 0) return;
  const start = Date.now();
  await tx.productVariant.createMany({
    data: variants.map((variant, index) => ({ productId, ...variantFields(variant), createdAt: new Date(start + index) })),
  });
}

function variantFields(variant: VendorProductBody['variants'][number]) {
  return { name: variant.name, priceOverride: variant.priceOverride ?? null, stock: variant.stock };
}

function productFields(body: VendorProductBody) {
  return {
    name: body.name,
    description: body.description,
    categoryId: body.categoryId ?? null,
    status: body.status,
    basePrice: body.basePrice,
    imagePath: body.imagePath ?? null,
    weightKg: body.weightKg ?? null,
    lengthCm: body.lengthCm ?? null,
    widthCm: body.widthCm ?? null,
    heightCm: body.heightCm ?? null,
    stock: body.stock,
  };
}
