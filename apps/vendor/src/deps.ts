import type { Bus, CommittedEvents } from '@pasar/bus';
import type { VendorConfig } from './config';
import type { Prisma, PrismaClient } from './generated/prisma/client';

/** What vendor's use cases take, explicitly; each names the part it needs (`Pick<VendorDeps, 'prisma'>`). */
export interface VendorDeps {
  prisma: PrismaClient;
  bus: Bus;
  config: VendorConfig;
  /** The service's relay: a vendor's shipment move hands its event to it after the commit (inTransactionHandingOver). */
  relay?: CommittedEvents;
  clock?: () => Date;
}

export type Tx = Prisma.TransactionClient;

/** Every event vendor writes to its outbox names this source. */
export const EVENT_SOURCE = { source: 'vendor' } as const;

export const now = (deps: Pick<VendorDeps, 'clock'>): Date => deps.clock?.() ?? new Date();

/** Transaction-scoped advisory locks, shared by every service (packages/db). */
export { lockKey } from '@pasar/db';
