import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { mountFeatures, startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { VendorConfig } from './config';
import { features } from './features';
import { PrismaClient } from './generated/prisma/client';

export type VendorService = RunningService<VendorConfig, PrismaClient>;

/** Migrates the `vendor` schema, starts every feature's consumers and rpc responders, and serves its routes. */
export function startVendor(
  config: VendorConfig,
  overrides: Pick<StartServiceOptions<VendorConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<VendorService> {
  return startService({
    name: 'vendor',
    config,
    prisma: createPrisma(PrismaClient, config.DATABASE_URL),
    migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
    ...mountFeatures(features),
    ...overrides,
  });
}
