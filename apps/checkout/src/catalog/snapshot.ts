import { RpcRefusal, serveRpc, type Bus } from '@pasar/bus';
import { checkoutProductSnapshot, checkoutProductsMissingDimensions, type RpcResponse } from '@pasar/contracts';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { effectiveUnitPrice } from './rules';

type Db = PrismaClient | Prisma.TransactionClient;

export type ProductSnapshot = RpcResponse<typeof checkoutProductSnapshot>;
export type SnapshotOutcome = { ok: true; snapshot: ProductSnapshot } | { ok: false; reason: 'not_found' | 'variant_required'; message: string };

/**
 * A product's price snapshot, whatever its status (the caller decides what a draft or archived
 * product means): unit price = the variant's override over the base price. Unknown product,
 * unknown variant or a variant of another product: not_found; a product with variants asked
 * without one: variant_required.
 */
export async function productSnapshot(prisma: Db, productId: string, variantId?: string | null): Promise<SnapshotOutcome> {
  const product = await prisma.product.findUnique({ where: { id: productId }, include: { variants: { select: { id: true } } } });
  if (!product) return { ok: false, reason: 'not_found', message: `no product ${productId}` };
  const variant = variantId ? await prisma.productVariant.findFirst({ where: { id: variantId, productId } }) : null;
  if (variantId && !variant) return { ok: false, reason: 'not_found', message: `no variant ${variantId} of product ${productId}` };
  if (!variant && product.variants.length > 0) return { ok: false, reason: 'variant_required', message: 'this product is sold by variant' };
  const store = await prisma.storeReplica.findUnique({ where: { storeId: product.storeId }, select: { name: true } });
  return {
    ok: true,
    snapshot: {
      productId: product.id,
      variantId: variant?.id ?? null,
      name: product.name,
      variantName: variant?.name ?? null,
      imagePath: product.imagePath,
      storeId: product.storeId,
      storeName: store?.name ?? null,
      status: product.status,
      unitPrice: effectiveUnitPrice(product.basePrice, variant?.priceOverride).toFixed(2),
      weightKg: product.weightKg?.toFixed(3) ?? null,
    },
  };
}

/** The store's non-draft products that lack the weight or any dimension (they block carrier methods), by name. */
export function productsMissingDimensions(prisma: Db, storeId: string): Promise<{ id: string; name: string }[]> {
  return prisma.product.findMany({
    where: { storeId, status: { not: 'draft' }, OR: [{ weightKg: null }, { lengthCm: null }, { widthCm: null }, { heightCm: null }] },
    select: { id: true, name: true },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
  });
}

/** rpc.checkout.product_snapshot and rpc.checkout.products_missing_dimensions. */
export function catalogResponders(bus: Bus, prisma: PrismaClient): ReturnType<typeof serveRpc>[] {
  return [
    serveRpc(bus, checkoutProductSnapshot, async ({ productId, variantId }) => {
      const outcome = await productSnapshot(prisma, productId, variantId);
      if (!outcome.ok) throw new RpcRefusal(outcome.reason, outcome.message);
      return outcome.snapshot;
    }),
    serveRpc(bus, checkoutProductsMissingDimensions, async ({ storeId }) => ({ products: await productsMissingDimensions(prisma, storeId) })),
  ];
}
