import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { VendorConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

export type VendorService = RunningService<VendorConfig, PrismaClient>;

/** Migrates the `vendor` schema and serves vendor's routes (none yet: health, readiness, metrics). */
export function startVendor(
  config: VendorConfig,
  overrides: Pick<StartServiceOptions<VendorConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<VendorService> {
  const prisma = createPrisma(PrismaClient, config.DATABASE_URL);
  return startService({ name: 'vendor', config, prisma, migrationsDir: join(__dirname, '..', 'prisma', 'migrations'), ...overrides });
}
