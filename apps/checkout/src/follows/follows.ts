import { FOLLOWED_FEED_PAGE_SIZE, MAX_FOLLOWED_STORES, type FollowedFeed, type FollowedStore } from '@pasar/contracts';
import { conflict, notFound } from '@pasar/service-kit';
import { pageCount, publicStorageUrl } from '../catalog/rules';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { VISIBLE_PRODUCT, productCards, type PickedProduct } from '../wishlist/product-cards';

/** What the follow use cases need. */
export interface FollowDeps {
  prisma: PrismaClient;
  config: { PUBLIC_STORAGE_URL: string };
}
type PrismaOnly = Pick<FollowDeps, 'prisma'>;

/**
 * The caller follows the store (idempotent: following it again changes nothing). 404 when no
 * store replica has the id; 409 `follow_limit` past MAX_FOLLOWED_STORES. The customer's follows
 * take turns (advisory lock keyed by the customer) so the limit holds under concurrency; the
 * primary key (customer_id, store_id) keeps one row per pair.
 */
export async function followStore({ prisma }: PrismaOnly, customerId: string, storeId: string): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`store_follow:${customerId}`}, 0))`;
    if (!(await tx.storeReplica.findUnique({ where: { storeId }, select: { storeId: true } }))) throw notFound('store');
    if (await tx.storeFollow.findUnique({ where: { customerId_storeId: { customerId, storeId } } })) return;
    if ((await tx.storeFollow.count({ where: { customerId } })) >= MAX_FOLLOWED_STORES) {
      throw conflict('follow_limit', `a customer follows at most ${MAX_FOLLOWED_STORES} stores`);
    }
    await tx.storeFollow.create({ data: { customerId, storeId } });
  });
}

/** The caller stops following the store (idempotent: not following it is fine). */
export async function unfollowStore({ prisma }: PrismaOnly, customerId: string, storeId: string): Promise<void> {
  await prisma.storeFollow.deleteMany({ where: { customerId, storeId } });
}

/** The stores the caller follows, most recently followed first. */
export async function followedStores({ prisma, config }: FollowDeps, customerId: string): Promise<FollowedStore[]> {
  const stores = await prisma.$queryRaw<{ id: string; name: string; slug: string; logoPath: string | null }[]>`
    SELECT s.store_id::text AS id, s.name, s.slug, s.logo_path AS "logoPath"
    FROM store_follow f JOIN store_replica s ON s.store_id = f.store_id
    WHERE f.customer_id = ${customerId}::uuid
    ORDER BY f.created_at DESC, s.store_id DESC`;
  return stores.map((s) => ({ id: s.id, name: s.name, slug: s.slug, logo_url: publicStorageUrl(config.PUBLIC_STORAGE_URL, s.logoPath) }));
}

/**
 * One page of the live products of the active stores the caller follows, newest first
 * (FOLLOWED_FEED_PAGE_SIZE a page). A page past the last answers no products.
 */
export async function followedFeed({ prisma, config }: FollowDeps, customerId: string, page: number): Promise<FollowedFeed> {
  const from = Prisma.sql`
    FROM store_follow f
    JOIN store_replica s ON s.store_id = f.store_id
    JOIN product p ON p.store_id = f.store_id
    WHERE f.customer_id = ${customerId}::uuid AND ${VISIBLE_PRODUCT}`;
  const [{ total }] = await prisma.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total ${from}`;
  const totalPages = pageCount(total, FOLLOWED_FEED_PAGE_SIZE);
  if (page > totalPages) return { products: [], totalPages };
  const picked = await prisma.$queryRaw<PickedProduct[]>`
    SELECT p.id::text AS id, s.name AS "storeName" ${from}
    ORDER BY p.created_at DESC, p.id DESC
    LIMIT ${FOLLOWED_FEED_PAGE_SIZE} OFFSET ${(page - 1) * FOLLOWED_FEED_PAGE_SIZE}`;
  return { products: await productCards(prisma, picked, config.PUBLIC_STORAGE_URL), totalPages };
}
