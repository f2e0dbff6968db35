import { randomUUID } from 'node:crypto';
import { vendorProduct, type Role, type VendorProduct } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import type { TestCheckout } from '../../test/checkout';
import type { StoreReplica } from '../generated/prisma/client';

/** Test helpers of the catalog feature (used by its *.test.ts files only). */

export const as = (role: Role, userId: string = randomUUID()) => signedHeaders({ userId, role });
/** A correctly signed request without a session, as the gateway forwards a public path. */
export const anonymous = () => signedHeaders(null);

/** A store replica row as vendor.store.upserted would write it. */
export async function addStore(t: TestCheckout, fields: Partial<StoreReplica> = {}): Promise<StoreReplica> {
  const storeId = fields.storeId ?? randomUUID();
  return t.checkout.prisma.storeReplica.create({
    data: {
      storeId,
      ownerUserId: randomUUID(),
      name: 'Kedai Ali',
      slug: `kedai-${storeId.slice(0, 8)}`,
      status: 'active',
      updatedAt: new Date('2026-01-01T00:00:00.000Z'),
      ...fields,
    },
  });
}

/** A valid body of POST/PUT /vendor/products: a live product without variants. */
export function productBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Kopi Tenom 500g',
    description: 'Sabah robusta',
    basePrice: '28.50',
    status: 'live',
    imagePath: 'products/kopi.jpg',
    weightKg: '0.520',
    lengthCm: '18',
    widthCm: '10',
    heightCm: '6',
    stock: 12,
    ...overrides,
  };
}

/** POST /vendor/products as the store's owner; answers the created product. */
export async function createProduct(t: TestCheckout, store: StoreReplica, overrides: Record<string, unknown> = {}): Promise<VendorProduct> {
  const res = await request(t.checkout.url).post('/api/v1/vendor/products').set(as('vendor', store.ownerUserId)).send(productBody(overrides)).expect(201);
  return vendorProduct.parse(res.body);
}

/**
 * A pending order with one item holding the product (and variant), written as submit would, so
 * the catalog sees the product as ordered.
 */
export async function orderHolding(t: TestCheckout, product: { id: string; storeId: string; name: string }, variantId: string | null = null): Promise<void> {
  const { prisma } = t.checkout;
  const order = await prisma.order.create({
    data: {
      shortId: `T${randomUUID().slice(0, 8)}`,
      customerId: randomUUID(),
      subtotal: '10.00',
      total: '10.00',
      shipFullName: 'Siti',
      shipPhone: '+60123456789',
      shipAddressLine1: '1 Jalan Ampang',
      shipCity: 'Kuala Lumpur',
      shipPostcode: '50450',
      shipState: 'Wilayah Persekutuan',
      expiresAt: new Date(Date.now() + 3_600_000),
    },
  });
  const subOrder = await prisma.subOrder.create({ data: { orderId: order.id, storeId: product.storeId, subtotal: '10.00', total: '10.00' } });
  await prisma.orderItem.create({
    data: {
      orderId: order.id,
      subOrderId: subOrder.id,
      storeId: product.storeId,
      productId: product.id,
      variantId,
      productName: product.name,
      unitPrice: '10.00',
      quantity: 1,
      lineTotal: '10.00',
    },
  });
}
