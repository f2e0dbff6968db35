import { serveRpc, type Bus } from '@pasar/bus';
import { vendorCreateStore, vendorStoreOfOwner } from '@pasar/contracts';
import type { PrismaClient } from '../generated/prisma/client';
import { storeOfOwner } from './access';
import { createStore } from './stores';

/** Answers rpc.vendor.create_store (vendor-application approval). */
export function createStoreRpc({ bus, prisma }: { bus: Bus; prisma: PrismaClient }) {
  return serveRpc(bus, vendorCreateStore, (input) => createStore({ prisma }, input));
}

/** Answers rpc.vendor.store_of_owner (the gateway's live shipment stream). */
export function storeOfOwnerRpc({ bus, prisma }: { bus: Bus; prisma: PrismaClient }) {
  return serveRpc(bus, vendorStoreOfOwner, async ({ ownerUserId }) => ({ storeId: await storeOfOwner(prisma, ownerUserId) }));
}
