import type { Bus, CommittedEvents } from '@pasar/bus';
import type { Logger } from 'pino';
import type { CheckoutConfig } from './config';
import type { PrismaClient } from './generated/prisma/client';

/**
 * What checkout's use cases take, explicitly (STYLE §5); each names the part it needs
 * (`Pick<CheckoutDeps, 'prisma' | 'clock'>`). Built once at boot from the service context.
 */
export interface CheckoutDeps {
  prisma: PrismaClient;
  bus: Bus;
  config: CheckoutConfig;
  log: Logger;
  /** The service's relay: the order batcher and the payments hand their committed events to it. */
  relay?: CommittedEvents;
  /** The time; tests pass their own. */
  clock?: () => Date;
}

/** The one place checkout reads the system time: the default clock of every use case. */
export const systemClock = (): Date => new Date();

/** The time by the deps' clock (the system's when none is given). */
export const now = (deps: Pick<CheckoutDeps, 'clock'>): Date => (deps.clock ?? systemClock)();
