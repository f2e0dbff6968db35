import type { Bus } from '@pasar/bus';
import type { ServiceContext } from '@pasar/service-kit';
import { carriersFromConfig, type Carriers } from './carriers/carriers';
import type { AdminConfig } from './config';
import type { Prisma, PrismaClient } from './generated/prisma/client';
import { LocalDiskStorage, type LabelStorage } from './labels/storage';

/** What admin's use cases take, explicitly; each names the part it needs (`Pick<AdminDeps, 'prisma'>`). */
export interface AdminDeps {
  prisma: PrismaClient;
  bus: Bus;
  config: AdminConfig;
  log: ServiceContext<AdminConfig, PrismaClient>['log'];
  /** The carrier adapters (carrier_a, carrier_b, or the mock for both), chosen from config at boot. */
  carriers: Carriers;
  /** Where label PDFs are kept (local disk under STORAGE_DIR). */
  storage: LabelStorage;
  clock?: () => Date;
}

export type Tx = Prisma.TransactionClient;

/** Every event admin writes to its outbox names this source. */
export const EVENT_SOURCE = { source: 'admin' } as const;

export const now = (deps: Pick<AdminDeps, 'clock'>): Date => deps.clock?.() ?? new Date();

/** Transaction-scoped advisory locks, shared by every service (packages/db). */
export { lockKey } from '@pasar/db';

const built = new WeakMap<object, AdminDeps>();

/**
 * The deps of a running admin, built once per service context: the carrier adapters from config
 * (live or mock) and the label storage (local disk under STORAGE_DIR).
 */
export function adminDeps(ctx: Pick<AdminDeps, 'prisma' | 'bus' | 'config' | 'log'>): AdminDeps {
  let deps = built.get(ctx);
  if (!deps) {
    deps = { ...ctx, carriers: carriersFromConfig(ctx.config), storage: new LocalDiskStorage(ctx.config.STORAGE_DIR) };
    built.set(ctx, deps);
  }
  return deps;
}
