import { randomUUID } from 'node:crypto';
import { placedOrder, type PlacedOrder, type Role } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import type { TestCheckout } from '../../test/checkout';
import { Prisma, type PrismaClient, type Product, type ProductVariant, type Voucher } from '../generated/prisma/client';

/** Test helpers of submit, orders, promotions and loyalty (used by *.test.ts files only). */

export const as = (role: Role, userId: string = randomUUID()) => signedHeaders({ userId, role });

/** A store replica row as vendor.store.upserted would write it. */
export async function seedStore(prisma: PrismaClient, name = 'Kedai Ali'): Promise<string> {
  const storeId = randomUUID();
  await prisma.storeReplica.create({
    data: { storeId, ownerUserId: randomUUID(), name, slug: `kedai-${storeId.slice(0, 8)}`, status: 'active', updatedAt: new Date() },
  });
  return storeId;
}

export async function seedCategory(prisma: PrismaClient, name = `Category ${randomUUID().slice(0, 8)}`): Promise<string> {
  const category = await prisma.category.create({ data: { name, slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-') } });
  return category.id;
}

export interface ProductSeed {
  storeId: string;
  name?: string;
  basePrice?: string;
  stock?: number;
  status?: 'draft' | 'live' | 'archived';
  categoryId?: string | null;
  weightKg?: string | null;
  dimensionsCm?: [string, string, string] | null;
  variants?: { name: string; priceOverride?: string | null; stock: number }[];
}

/** A catalog product (live, MYR 20.00, 10 in stock, 0.5 kg, 10×20×5 cm unless told). */
export async function seedProduct(prisma: PrismaClient, seed: ProductSeed): Promise<Product & { variants: ProductVariant[] }> {
  const id = randomUUID();
  const [lengthCm, widthCm, heightCm] = seed.dimensionsCm === null ? [null, null, null] : (seed.dimensionsCm ?? ['10', '20', '5']);
  return prisma.product.create({
    data: {
      id,
      storeId: seed.storeId,
      categoryId: seed.categoryId ?? null,
      name: seed.name ?? `Product ${id.slice(0, 6)}`,
      slug: `product-${id}`,
      status: seed.status ?? 'live',
      basePrice: seed.basePrice ?? '20.00',
      stock: seed.stock ?? 10,
      weightKg: seed.weightKg === undefined ? '0.500' : seed.weightKg,
      lengthCm,
      widthCm,
      heightCm,
      variants: { create: (seed.variants ?? []).map((v) => ({ name: v.name, priceOverride: v.priceOverride ?? null, stock: v.stock })) },
    },
    include: { variants: { orderBy: { name: 'asc' } } },
  });
}

/** A shipping-method replica row as vendor.shipping_method.upserted would write it. */
export async function seedShippingMethod(
  prisma: PrismaClient,
  storeId: string,
  fields: { type?: string; rateConfig?: Prisma.InputJsonValue; isActive?: boolean } = {},
): Promise<string> {
  const id = randomUUID();
  await prisma.shippingMethodReplica.create({
    data: {
      id,
      storeId,
      name: `Method ${id.slice(0, 4)}`,
      provider: 'carrier_a',
      type: fields.type ?? 'flat',
      rateConfig: fields.rateConfig ?? { rate: 5 },
      isActive: fields.isActive ?? true,
      updatedAt: new Date(),
    },
  });
  return id;
}

/** The address seedAddress writes, as the order's delivery address snapshot. */
export const SEEDED_ADDRESS = {
  fullName: 'Siti Aminah',
  phone: '+60123456789',
  addressLine1: '12 Jalan Ampang',
  addressLine2: null,
  city: 'Kuala Lumpur',
  postcode: '50450',
  state: 'Wilayah Persekutuan',
};

export async function seedAddress(prisma: PrismaClient, customerId: string): Promise<string> {
  const address = await prisma.customerAddress.create({ data: { customerId, label: 'Home', ...SEEDED_ADDRESS, isDefault: true } });
  return address.id;
}

/** A voucher (platform, 10% off, active, unlimited unless told). */
export function seedVoucher(prisma: PrismaClient, fields: Partial<Prisma.VoucherUncheckedCreateInput> = {}): Promise<Voucher> {
  return prisma.voucher.create({
    data: {
      code: `V${randomUUID().slice(0, 8).toUpperCase()}`,
      tier: 'platform',
      discountType: 'percentage',
      discountValue: '10',
      ...fields,
    },
  });
}

export async function seedKolCode(prisma: PrismaClient, categoryId: string, fields: Partial<Prisma.KolCodeUncheckedCreateInput> = {}): Promise<string> {
  const kol = await prisma.kolCode.create({
    data: { code: `KOL${randomUUID().slice(0, 8).toUpperCase()}`, discountType: 'percentage', discountValue: '10', categoryId, ...fields },
  });
  return kol.code;
}

export async function seedPoints(prisma: PrismaClient, customerId: string, balance: number): Promise<void> {
  await prisma.loyaltyAccount.create({ data: { customerId, balance, totalEarned: balance } });
}

/** A customer with an address, ready to submit. */
export async function seedCustomer(prisma: PrismaClient): Promise<{ customerId: string; addressId: string }> {
  const customerId = randomUUID();
  return { customerId, addressId: await seedAddress(prisma, customerId) };
}

export function ordersClient(t: TestCheckout) {
  const http = () => request(t.checkout.url);
  return {
    http,
    /** POST /checkout/submit as the customer; answers the raw response. */
    submit(customerId: string, body: Record<string, unknown>, idempotencyKey?: string) {
      const req = http().post('/api/v1/checkout/submit').set(as('customer', customerId));
      return (idempotencyKey === undefined ? req : req.set('Idempotency-Key', idempotencyKey)).send(body);
    },
    /** A submit that must succeed: answers the placed order. */
    async placed(customerId: string, body: Record<string, unknown>): Promise<PlacedOrder> {
      const res = await this.submit(customerId, body);
      if (res.status !== 201) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
      return placedOrder.parse(res.body);
    },
  };
}

export const stockOf = async (prisma: PrismaClient, productId: string) => (await prisma.product.findUniqueOrThrow({ where: { id: productId } })).stock;

/**
 * Counts the calls of a named statement on a pg pool (the Prisma client's queries share it) until
 * jest's mocks are restored; the statements still run.
 */
export function countStatements(pool: { query: (...args: never[]) => unknown }, name: string): { calls: number } {
  const counter = { calls: 0 };
  const query = (pool.query as (...args: unknown[]) => unknown).bind(pool);
  jest.spyOn(pool as { query: (...args: unknown[]) => unknown }, 'query').mockImplementation((...args: unknown[]) => {
    if ((args[0] as { name?: string } | undefined)?.name === name) counter.calls += 1;
    return query(...args);
  });
  return counter;
}
