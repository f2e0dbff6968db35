import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import { addressRoutes } from './addresses/routes';
import type { CheckoutConfig } from './config';
import { PrismaClient } from './generated/prisma/client';
import { userReplicaConsumer } from './users/events';

export type CheckoutService = RunningService<CheckoutConfig, PrismaClient>;

/** Migrates the `checkout` schema, starts the consumers and serves the checkout routes. */
export function startCheckout(
  config: CheckoutConfig,
  overrides: Pick<StartServiceOptions<CheckoutConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<CheckoutService> {
  return startService({
    name: 'checkout',
    config,
    prisma: createPrisma(PrismaClient, config.DATABASE_URL),
    migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
    routes: (router, { prisma }) => addressRoutes(router, { prisma }),
    consumers: ({ bus, prisma }) => [userReplicaConsumer(bus, prisma)],
    ...overrides,
  });
}
