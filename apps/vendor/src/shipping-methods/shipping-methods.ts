import { callRpc, enqueueEvent } from '@pasar/bus';
import {
  ACTIVATION_BLOCKED_ERROR,
  checkoutProductsMissingDimensions,
  listWindow,
  vendorShippingMethodDeleted,
  vendorShippingMethodUpserted,
  type ActivationResult,
  type ListQuery,
  type ShippingMethodBody,
} from '@pasar/contracts';
import { conflict, notFound } from '@pasar/service-kit';
import { EVENT_SOURCE, now, type Tx, type VendorDeps } from '../deps';
import type { Prisma, ShippingMethod } from '../generated/prisma/client';

type Deps = Pick<VendorDeps, 'prisma'>;

/** The store's methods, oldest first (spec). */
/** One page of the store's shipping methods, oldest first. */
export function listShippingMethods({ prisma }: Deps, storeId: string, page: ListQuery): Promise<ShippingMethod[]> {
  return prisma.shippingMethod.findMany({ where: { storeId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...listWindow(page) });
}

/** Adds a method (inactive until activated) and answers its id; checkout learns of it by event. */
export async function createShippingMethod({ prisma }: Deps, storeId: string, body: ShippingMethodBody): Promise<string> {
  return prisma.$transaction(async (tx) => {
    const method = await tx.shippingMethod.create({ data: { storeId, ...methodFields(body) } });
    await publishUpserted(tx, method);
    return method.id;
  });
}

/** Replaces name, provider, type, rate_config and the estimate; is_active is left as it is. */
export async function updateShippingMethod({ prisma }: Deps, storeId: string, id: string, body: ShippingMethodBody): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await findOwnMethod(tx, storeId, id);
    await publishUpserted(tx, await tx.shippingMethod.update({ where: { id }, data: methodFields(body) }));
  });
}

export async function deleteShippingMethod(deps: Deps & Pick<VendorDeps, 'clock'>, storeId: string, id: string): Promise<void> {
  await deps.prisma.$transaction(async (tx) => {
    await findOwnMethod(tx, storeId, id);
    await tx.shippingMethod.delete({ where: { id } });
    await enqueueEvent(tx, vendorShippingMethodDeleted, { id, storeId, deletedAt: now(deps).toISOString() }, EVENT_SOURCE);
  });
}

/**
 * Flips is_active and answers the new value. Switching on is an activation: while products lack
 * weight or dimensions it answers 409 `activation_blocked` (POST .../activate lists them).
 */
export async function toggleShippingMethod(deps: Pick<VendorDeps, 'prisma' | 'bus'>, storeId: string, id: string): Promise<boolean> {
  const current = await findOwnMethod(deps.prisma, storeId, id);
  const active = !current.isActive;
  if (active) {
    const blocked = await productsMissingDimensions(deps, storeId);
    if (blocked.length > 0) throw conflict('activation_blocked', `${blocked.length} product(s) lack weight or dimensions`);
  }
  await setActive(deps, storeId, id, active, current.isActive);
  return active;
}

/**
 * Sets is_active. Deactivation always succeeds; activation of a carrier_a/carrier_b method (every
 * provider there is) is refused in the body while any non-draft product of the store lacks weight
 * or dimensions, as checkout answers; checkout not answering is a 503, never a silent yes.
 */
export async function activateShippingMethod(
  deps: Pick<VendorDeps, 'prisma' | 'bus'>,
  storeId: string,
  id: string,
  active: boolean,
): Promise<ActivationResult> {
  await findOwnMethod(deps.prisma, storeId, id);
  if (active) {
    const blocked = await productsMissingDimensions(deps, storeId);
    if (blocked.length > 0) return { success: false, error: ACTIVATION_BLOCKED_ERROR, blockedProducts: blocked };
  }
  await setActive(deps, storeId, id, active);
  return { success: true, error: null, blockedProducts: [] };
}

async function productsMissingDimensions({ bus }: Pick<VendorDeps, 'bus'>, storeId: string) {
  const { products } = await callRpc(bus, checkoutProductsMissingDimensions, { storeId });
  return products;
}

/** Writes is_active (only while it still equals `expected`, when given) and publishes the method. */
async function setActive({ prisma }: Deps, storeId: string, id: string, active: boolean, expected?: boolean): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const where: Prisma.ShippingMethodWhereInput = { id, storeId, ...(expected === undefined ? {} : { isActive: expected }) };
    const [method] = await tx.shippingMethod.updateManyAndReturn({ where, data: { isActive: active } });
    if (!method) {
      await findOwnMethod(tx, storeId, id);
      throw conflict('concurrent_update', 'the method changed meanwhile; try again');
    }
    await publishUpserted(tx, method);
  });
}

/** The method if it is the store's; another store's is as unknown as a missing one. */
async function findOwnMethod(db: Tx, storeId: string, id: string): Promise<ShippingMethod> {
  const method = await db.shippingMethod.findFirst({ where: { id, storeId } });
  if (!method) throw notFound('shipping method');
  return method;
}

function methodFields(body: ShippingMethodBody) {
  return {
    name: body.name,
    provider: body.provider,
    type: body.type,
    rateConfig: body.rate_config as Prisma.InputJsonObject,
    estimatedDaysMin: body.estimated_days_min ?? null,
    estimatedDaysMax: body.estimated_days_max ?? null,
  };
}

function publishUpserted(tx: Tx, method: ShippingMethod) {
  return enqueueEvent(
    tx,
    vendorShippingMethodUpserted,
    {
      id: method.id,
      storeId: method.storeId,
      name: method.name,
      provider: method.provider,
      type: method.type,
      rateConfig: method.rateConfig as Record<string, unknown>,
      estimatedDaysMin: method.estimatedDaysMin,
      estimatedDaysMax: method.estimatedDaysMax,
      isActive: method.isActive,
      updatedAt: method.updatedAt.toISOString(),
    },
    EVENT_SOURCE,
  );
}
