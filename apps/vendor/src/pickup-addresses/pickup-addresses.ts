import { listWindow, type ListQuery, type PickupAddressBody } from '@pasar/contracts';
import { notFound } from '@pasar/service-kit';
import { lockKey, type Tx, type VendorDeps } from '../deps';
import type { PickupAddress, PrismaClient } from '../generated/prisma/client';

type Deps = Pick<VendorDeps, 'prisma'>;

/** The order GET answers in (spec): the default first, then oldest first. */
export const PICKUP_ADDRESS_ORDER = [{ isDefault: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }] as const;

export function listPickupAddresses({ prisma }: Deps, storeId: string, page: ListQuery): Promise<PickupAddress[]> {
  return prisma.pickupAddress.findMany({ where: { storeId }, orderBy: [...PICKUP_ADDRESS_ORDER], ...listWindow(page) });
}

/** Adds an address and answers its id; is_default=true unsets the store's other default in the same transaction. */
export async function createPickupAddress({ prisma }: Deps, storeId: string, body: PickupAddressBody): Promise<string> {
  return withStoreAddresses(prisma, storeId, async (tx) => {
    const isDefault = body.is_default === true;
    if (isDefault) await clearDefault(tx, storeId);
    const created = await tx.pickupAddress.create({ data: { storeId, ...addressFields(body), isDefault }, select: { id: true } });
    return created.id;
  });
}

/** Replaces the fields; is_default true makes it the default, false unsets it, absent keeps it. */
export async function updatePickupAddress({ prisma }: Deps, storeId: string, id: string, body: PickupAddressBody): Promise<void> {
  await withStoreAddresses(prisma, storeId, async (tx) => {
    const current = await findOwnAddress(tx, storeId, id);
    const isDefault = body.is_default ?? current.isDefault;
    if (isDefault && !current.isDefault) await clearDefault(tx, storeId);
    await tx.pickupAddress.update({ where: { id }, data: { ...addressFields(body), isDefault } });
  });
}

export async function deletePickupAddress({ prisma }: Deps, storeId: string, id: string): Promise<void> {
  await withStoreAddresses(prisma, storeId, async (tx) => {
    await findOwnAddress(tx, storeId, id);
    await tx.pickupAddress.delete({ where: { id } });
  });
}

/**
 * One transaction holding the store's pickup-address lock, so concurrent writes take turns and
 * the single default holds (the partial unique index pickup_address_one_default enforces it too).
 */
function withStoreAddresses<R>(prisma: PrismaClient, storeId: string, work: (tx: Tx) => Promise<R>): Promise<R> {
  return prisma.$transaction(async (tx) => {
    await lockKey(tx, `pickup_address:${storeId}`);
    return work(tx);
  });
}

async function findOwnAddress(tx: Tx, storeId: string, id: string): Promise<PickupAddress> {
  const address = await tx.pickupAddress.findFirst({ where: { id, storeId } });
  if (!address) throw notFound('pickup address');
  return address;
}

async function clearDefault(tx: Tx, storeId: string): Promise<void> {
  await tx.pickupAddress.updateMany({ where: { storeId, isDefault: true }, data: { isDefault: false } });
}

function addressFields(body: PickupAddressBody) {
  return { label: body.label, addressLine1: body.address_line_1, postcode: body.postcode, state: body.state };
}
