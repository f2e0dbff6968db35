import type { ProductCard } from '@pasar/contracts';
import type { CatalogEntry } from '../catalog/browse';
import { toCatalogCard } from '../catalog/json';
import { withVariants } from '../catalog/products';
import { Prisma, type PrismaClient } from '../generated/prisma/client';

/**
 * What a customer may see as a card, over `product p JOIN store_replica s`: a live product of an
 * active store (as the public catalog shows them).
 */
export const VISIBLE_PRODUCT = Prisma.sql`p.status = 'live' AND s.status = 'active'`;

/** A product a list query picked, with the name of its store (from the same join). */
export interface PickedProduct {
  id: string;
  storeName: string;
}

/**
 * The Product cards of the picked products, in the order picked (the query chose the order); a
 * product deleted between the pick and this read is left out.
 */
export async function productCards(prisma: PrismaClient, picked: readonly PickedProduct[], storageUrl: string): Promise<ProductCard[]> {
  if (picked.length === 0) return [];
  const products = await prisma.product.findMany({ where: { id: { in: picked.map((p) => p.id) } }, include: withVariants });
  const byId = new Map(products.map((product) => [product.id, product]));
  return picked.flatMap(({ id, storeName }) => {
    const product = byId.get(id);
    return product ? [toProductCard({ product, storeName }, storageUrl)] : [];
  });
}

/** The spec's Product card: the catalog's card (same price and image rules) without its stock. */
export function toProductCard(entry: CatalogEntry, storageUrl: string): ProductCard {
  const { stock: _stock, ...card } = toCatalogCard(entry, storageUrl);
  return card;
}
