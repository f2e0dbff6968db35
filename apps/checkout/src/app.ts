import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { mountFeatures, startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { CheckoutConfig } from './config';
import { features } from './features';
import { PrismaClient } from './generated/prisma/client';

export type CheckoutService = RunningService<CheckoutConfig, PrismaClient>;

/** Migrates the `checkout` schema, starts every feature's consumers, rpc and workers, and serves its routes. */
export function startCheckout(
  config: CheckoutConfig,
  overrides: Pick<StartServiceOptions<CheckoutConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<CheckoutService> {
  return startService({
    name: 'checkout',
    config,
    prisma: createPrisma(PrismaClient, config.DATABASE_URL),
    migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
    publicPaths: ['/payments/notify', '/catalog/*'],
    formPaths: ['/payments/notify'],
    ...mountFeatures(features),
    ...overrides,
  });
}
