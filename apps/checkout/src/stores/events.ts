import { consumeWithInbox, type Bus, type RunningConsumer } from '@pasar/bus';
import { vendorShippingMethodDeleted, vendorShippingMethodUpserted, vendorStoreUpserted, type EventData } from '@pasar/contracts';
import type { Prisma, PrismaClient } from '../generated/prisma/client';

export type StoreUpserted = EventData<typeof vendorStoreUpserted>;
export type ShippingMethodUpserted = EventData<typeof vendorShippingMethodUpserted>;
export type ShippingMethodDeleted = EventData<typeof vendorShippingMethodDeleted>;

type Tx = Prisma.TransactionClient;

/** Keeps `store_replica` and `shipping_method_replica` in step with vendor's events. */
export function storeReplicaConsumers(bus: Bus, prisma: PrismaClient): RunningConsumer[] {
  return [
    consumeWithInbox(bus, { name: 'store-replica', event: vendorStoreUpserted, db: prisma, handler: (store, { tx }) => applyStoreUpserted(tx, store) }),
    consumeWithInbox(bus, {
      name: 'shipping-method-replica',
      event: vendorShippingMethodUpserted,
      db: prisma,
      handler: (method, { tx }) => applyShippingMethodUpserted(tx, method),
    }),
    consumeWithInbox(bus, {
      name: 'shipping-method-removal',
      event: vendorShippingMethodDeleted,
      db: prisma,
      handler: (removal, { tx }) => applyShippingMethodDeleted(tx, removal),
    }),
  ];
}

/**
 * Inserts the row, or when it exists overwrites it only where it is older: a late event never
 * undoes a newer one, and insert-then-conditional-update keeps that true when two instances race.
 */
async function newestWins(insert: () => Promise<{ count: number }>, updateOlder: () => Promise<unknown>): Promise<void> {
  const inserted = await insert();
  if (inserted.count === 0) await updateOlder();
}

/** Writes the store unless the replica holds a version at least as new. */
export async function applyStoreUpserted(tx: Tx, store: StoreUpserted): Promise<void> {
  const fields = {
    ownerUserId: store.ownerUserId,
    name: store.name,
    slug: store.slug,
    logoPath: store.logoPath,
    status: store.status,
    updatedAt: new Date(store.updatedAt),
  };
  await newestWins(
    () => tx.storeReplica.createMany({ data: [{ storeId: store.storeId, ...fields }], skipDuplicates: true }),
    () => tx.storeReplica.updateMany({ where: { storeId: store.storeId, updatedAt: { lt: fields.updatedAt } }, data: fields }),
  );
}

/** Writes the shipping method unless the replica holds a version at least as new. */
export async function applyShippingMethodUpserted(tx: Tx, method: ShippingMethodUpserted): Promise<void> {
  const fields = {
    storeId: method.storeId,
    name: method.name,
    provider: method.provider,
    type: method.type,
    rateConfig: method.rateConfig as Prisma.InputJsonObject,
    estimatedDaysMin: method.estimatedDaysMin,
    estimatedDaysMax: method.estimatedDaysMax,
    isActive: method.isActive,
    updatedAt: new Date(method.updatedAt),
  };
  await newestWins(
    () => tx.shippingMethodReplica.createMany({ data: [{ id: method.id, ...fields }], skipDuplicates: true }),
    () => tx.shippingMethodReplica.updateMany({ where: { id: method.id, updatedAt: { lt: fields.updatedAt } }, data: fields }),
  );
}

/** Removes the shipping method; a version written after the deletion (newer updatedAt) stays. */
export async function applyShippingMethodDeleted(tx: Tx, removal: ShippingMethodDeleted): Promise<void> {
  await tx.shippingMethodReplica.deleteMany({ where: { id: removal.id, updatedAt: { lte: new Date(removal.deletedAt) } } });
}
