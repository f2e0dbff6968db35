import { MAX_WISHLIST_ITEMS, type ProductCard } from '@pasar/contracts';
import { conflict, notFound } from '@pasar/service-kit';
import type { PrismaClient } from '../generated/prisma/client';
import { VISIBLE_PRODUCT, productCards, type PickedProduct } from './product-cards';

/** What the wishlist use cases need. */
export interface WishlistDeps {
  prisma: PrismaClient;
  config: { PUBLIC_STORAGE_URL: string };
}

/** The caller's wishlist as Product cards, newest first (products the catalog shows: live, of an active store). */
export async function wishlistCards({ prisma, config }: WishlistDeps, customerId: string): Promise<ProductCard[]> {
  return productCards(prisma, await wishlistedProducts(prisma, customerId), config.PUBLIC_STORAGE_URL);
}

/** The ids of the products on the caller's wishlist, newest first (the same products as the cards). */
export async function wishlistProductIds({ prisma }: Pick<WishlistDeps, 'prisma'>, customerId: string): Promise<string[]> {
  return (await wishlistedProducts(prisma, customerId)).map((p) => p.id);
}

/**
 * Adds the product to the caller's wishlist, or removes it when it is there; answers the new
 * state. The customer's toggles take turns (a transaction-scoped advisory lock keyed by the
 * customer), so concurrent toggles alternate and never write a second row (the primary key
 * (customer_id, product_id) guards that too). Adding needs a product the catalog shows (404
 * otherwise) and room on the list (409 `wishlist_full`); removing works whatever became of it.
 */
export async function toggleWishlist({ prisma }: Pick<WishlistDeps, 'prisma'>, customerId: string, productId: string): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`wishlist:${customerId}`}, 0))`;
    const removed = await tx.wishlistItem.deleteMany({ where: { customerId, productId } });
    if (removed.count > 0) return false;
    const visible = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM product p JOIN store_replica s ON s.store_id = p.store_id WHERE p.id = ${productId}::uuid AND ${VISIBLE_PRODUCT}`;
    if (visible.length === 0) throw notFound('product');
    if ((await tx.wishlistItem.count({ where: { customerId } })) >= MAX_WISHLIST_ITEMS) {
      throw conflict('wishlist_full', `a wishlist holds at most ${MAX_WISHLIST_ITEMS} products`);
    }
    await tx.wishlistItem.create({ data: { customerId, productId } });
    return true;
  });
}

function wishlistedProducts(prisma: PrismaClient, customerId: string): Promise<PickedProduct[]> {
  return prisma.$queryRaw<PickedProduct[]>`
    SELECT p.id::text AS id, s.name AS "storeName"
    FROM wishlist_item w
    JOIN product p ON p.id = w.product_id
    JOIN store_replica s ON s.store_id = p.store_id
    WHERE w.customer_id = ${customerId}::uuid AND ${VISIBLE_PRODUCT}
    ORDER BY w.created_at DESC, p.id DESC`;
}
