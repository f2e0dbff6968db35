import { randomUUID } from 'node:crypto';
import type { Role } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import type { TestCheckout } from '../../test/checkout';
import type { Prisma, Product } from '../generated/prisma/client';

/** Test helpers of the customer account features (wishlist, follows, returns; their *.test.ts files only). */

/** Signed headers of a user with the role (a fresh user id unless given). */
export const signedAs = (role: Role, userId: string = randomUUID()) => signedHeaders({ userId, role });

export type Endpoint = readonly ['get' | 'post' | 'delete', string];

/**
 * The auth cases of endpoints only `role` may call: 401 without a signed identity, 403 for the
 * other of customer and vendor (a POST carries `body`, so that only the role decides).
 */
export function testRoleGate(t: TestCheckout, role: 'customer' | 'vendor', endpoints: readonly Endpoint[], body: object = {}): void {
  const other = role === 'customer' ? 'vendor' : 'customer';
  const call = ([method, path]: Endpoint, headers: Record<string, string>) =>
    request(t.checkout.url)[method](path).set(headers).send(method === 'post' ? body : undefined);

  test.each(endpoints)('%s %s: 401 without a signed identity', async (...endpoint) => {
    expect((await call(endpoint, {}).expect(401)).body.code).toBe('unauthenticated');
  });

  test.each(endpoints)(`%s %s: 403 for a ${other}`, async (...endpoint) => {
    expect((await call(endpoint, signedAs(other)).expect(403)).body.code).toBe('forbidden');
  });
}

/** A product row written straight to the catalog: live, MYR 10.00, unless `fields` says otherwise. */
export function addProduct(t: TestCheckout, storeId: string, fields: Partial<Prisma.ProductUncheckedCreateInput> = {}): Promise<Product> {
  const id = fields.id ?? randomUUID();
  return t.checkout.prisma.product.create({
    data: { id, storeId, name: `Product ${id.slice(0, 8)}`, slug: `product-${id}`, status: 'live', basePrice: '10.00', ...fields },
  });
}

/** An instant `seconds` after a fixed origin: distinct, ordered created_at values for "newest first" checks. */
export const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);
