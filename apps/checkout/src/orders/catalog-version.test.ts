import { randomUUID } from 'node:crypto';
import { sqlPoolOf } from '@pasar/db';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { PrismaClient } from '../generated/prisma/client';
import { CATALOG_ROW_JSON } from './place-order';
import { seedCategory, seedProduct, seedShippingMethod, seedStore } from './test-fixtures';

/**
 * catalog_version (apps/checkout/sql/functions/catalog_version.sql) must change whenever a field
 * that pricing reads (CATALOG_ROW_JSON) changes, or a cached price would be placed after the
 * catalog changed under it. The fields are taken from CATALOG_ROW_JSON itself: a field added
 * there without a case here (and in catalog_version) fails the first test.
 */

let t: TestCheckout;
let prisma: PrismaClient;
beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
});
afterAll(() => t?.stop());

interface Seeded {
  productId: string;
  variantId: string;
  methodId: string;
  storeId: string;
}

type Sql = (text: string, ...values: unknown[]) => Promise<unknown>;

/** How to change each field pricing reads, by `<alias>.<column>` of CATALOG_ROW_JSON (p product, v its variants, m its store's methods). */
const CHANGES: Record<string, (sql: Sql, s: Seeded) => Promise<unknown>> = {
  'p.store_id': async (sql, s) => sql('UPDATE product SET store_id = $1 WHERE id = $2', await seedStore(prisma), s.productId),
  'p.category_id': async (sql, s) => sql('UPDATE product SET category_id = $1 WHERE id = $2', await seedCategory(prisma), s.productId),
  'p.name': (sql, s) => sql("UPDATE product SET name = name || ' II' WHERE id = $1", s.productId),
  'p.status': (sql, s) => sql("UPDATE product SET status = 'archived' WHERE id = $1", s.productId),
  'p.base_price': (sql, s) => sql('UPDATE product SET base_price = base_price + 1 WHERE id = $1', s.productId),
  'p.weight_kg': (sql, s) => sql('UPDATE product SET weight_kg = weight_kg + 0.001 WHERE id = $1', s.productId),
  'p.length_cm': (sql, s) => sql('UPDATE product SET length_cm = length_cm + 1 WHERE id = $1', s.productId),
  'p.width_cm': (sql, s) => sql('UPDATE product SET width_cm = width_cm + 1 WHERE id = $1', s.productId),
  'p.height_cm': (sql, s) => sql('UPDATE product SET height_cm = height_cm + 1 WHERE id = $1', s.productId),
  'v.id': (sql, s) => sql("INSERT INTO product_variant (id, product_id, name, stock) VALUES ($1, $2, 'Another', 1)", randomUUID(), s.productId),
  'v.name': (sql, s) => sql("UPDATE product_variant SET name = name || ' II' WHERE id = $1", s.variantId),
  'v.price_override': (sql, s) => sql('UPDATE product_variant SET price_override = 99.90 WHERE id = $1', s.variantId),
  'm.id': (_sql, s) => seedShippingMethod(prisma, s.storeId),
  'm.store_id': async (sql, s) => sql('UPDATE shipping_method_replica SET store_id = $1 WHERE id = $2', await seedStore(prisma), s.methodId),
  'm.type': (sql, s) => sql("UPDATE shipping_method_replica SET type = 'weight' WHERE id = $1", s.methodId),
  'm.rate_config': (sql, s) => sql(`UPDATE shipping_method_replica SET rate_config = '{"rate": 6}' WHERE id = $1`, s.methodId),
  'm.is_active': (sql, s) => sql('UPDATE shipping_method_replica SET is_active = NOT is_active WHERE id = $1', s.methodId),
};

/** Fields pricing reads that leave the version alone, on purpose: stock is checked by the write itself; p.id is the row's identity. */
const NOT_VERSIONED: Record<string, (sql: Sql, s: Seeded) => Promise<unknown>> = {
  'p.stock': (sql, s) => sql('UPDATE product SET stock = stock - 1 WHERE id = $1', s.productId),
  'v.stock': (sql, s) => sql('UPDATE product_variant SET stock = stock - 1 WHERE id = $1', s.variantId),
};

/** The `<alias>.<column>` of every field CATALOG_ROW_JSON reads. */
const catalogFields = () => [...new Set([...CATALOG_ROW_JSON.matchAll(/'\w+', ([pvm])\.(\w+)/g)].map(([, alias, column]) => `${alias}.${column}`))].sort();

const sql: Sql = (text, ...values) => sqlPoolOf(prisma).query(text, values);

async function seed(): Promise<Seeded> {
  const storeId = await seedStore(prisma);
  const methodId = await seedShippingMethod(prisma, storeId);
  const product = await seedProduct(prisma, { storeId, categoryId: await seedCategory(prisma), variants: [{ name: 'Red', priceOverride: '21.00', stock: 5 }] });
  return { productId: product.id, variantId: product.variants[0].id, methodId, storeId };
}

async function versionOf(productId: string): Promise<string> {
  const { rows } = await sqlPoolOf(prisma).query<{ version: string }>('SELECT catalog_version(p) AS version FROM product p WHERE id = $1', [productId]);
  return rows[0].version;
}

test('every field CATALOG_ROW_JSON reads has a case here: versioned, or left out on purpose', () => {
  expect(catalogFields()).toEqual([...Object.keys(CHANGES), ...Object.keys(NOT_VERSIONED), 'p.id'].sort());
});

test.each(Object.keys(CHANGES))('changing %s changes catalog_version', async (field) => {
  const seeded = await seed();
  const before = await versionOf(seeded.productId);
  expect(await versionOf(seeded.productId)).toBe(before); // stable while nothing changes
  await CHANGES[field](sql, seeded);
  expect(await versionOf(seeded.productId)).not.toBe(before);
});

test.each(Object.keys(NOT_VERSIONED))('changing %s leaves catalog_version alone (the write checks stock itself)', async (field) => {
  const seeded = await seed();
  const before = await versionOf(seeded.productId);
  await NOT_VERSIONED[field](sql, seeded);
  expect(await versionOf(seeded.productId)).toBe(before);
});
