import { serveRpc, type Bus } from '@pasar/bus';
import { vendorCreateStore } from '@pasar/contracts';
import type { PrismaClient } from '../generated/prisma/client';
import { createStore } from './stores';

/** Answers rpc.vendor.create_store (vendor-application approval). */
export function createStoreRpc({ bus, prisma }: { bus: Bus; prisma: PrismaClient }) {
  return serveRpc(bus, vendorCreateStore, (input) => createStore({ prisma }, input));
}
