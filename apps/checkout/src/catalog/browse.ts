import { CATALOG_PAGE_SIZE, type CatalogProductsQuery } from '@pasar/contracts';
import { notFound } from '@pasar/service-kit';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { withVariants, type ProductPage, type ProductWithVariants } from './products';
import { escapeLikePattern, pageCount } from './rules';

/** What the public catalog needs. */
export interface CatalogDeps {
  prisma: PrismaClient;
}

/** A product as the public catalog shows it, with the name of its store. */
export interface CatalogEntry {
  product: ProductWithVariants;
  storeName: string;
}

/**
 * Live products of active stores, newest first, filtered by store, category and part of the
 * name. The store's status lives in the replica, so the page is chosen in SQL with a join.
 */
export async function browseCatalog({ prisma }: CatalogDeps, query: CatalogProductsQuery): Promise<ProductPage<CatalogEntry>> {
  const filters = [Prisma.sql`p.status = 'live'`, Prisma.sql`s.status = 'active'`];
  if (query.storeId) filters.push(Prisma.sql`p.store_id = ${query.storeId}::uuid`);
  if (query.categoryId) filters.push(Prisma.sql`p.category_id = ${query.categoryId}::uuid`);
  if (query.q) filters.push(Prisma.sql`p.name ILIKE ${`%${escapeLikePattern(query.q)}%`}`);
  const from = Prisma.sql`FROM product p JOIN store_replica s ON s.store_id = p.store_id WHERE ${Prisma.join(filters, ' AND ')}`;

  const [{ total }] = await prisma.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total ${from}`;
  const rows = await prisma.$queryRaw<{ id: string; storeName: string }[]>`
    SELECT p.id::text AS id, s.name AS "storeName" ${from}
    ORDER BY p.created_at DESC, p.id DESC
    LIMIT ${CATALOG_PAGE_SIZE} OFFSET ${(query.page - 1) * CATALOG_PAGE_SIZE}`;
  const products = new Map(
    (await prisma.product.findMany({ where: { id: { in: rows.map((r) => r.id) } }, include: withVariants })).map((p) => [p.id, p]),
  );
  const items = rows.flatMap((row) => {
    const product = products.get(row.id);
    return product ? [{ product, storeName: row.storeName }] : [];
  });
  return { items, page: query.page, totalPages: pageCount(total, CATALOG_PAGE_SIZE), total };
}

/** One live product of an active store; anything else is 404. */
export async function catalogProduct({ prisma }: CatalogDeps, productId: string): Promise<CatalogEntry> {
  const product = await prisma.product.findFirst({ where: { id: productId, status: 'live' }, include: withVariants });
  const store = product && (await prisma.storeReplica.findFirst({ where: { storeId: product.storeId, status: 'active' } }));
  if (!product || !store) throw notFound('product');
  return { product, storeName: store.name };
}
