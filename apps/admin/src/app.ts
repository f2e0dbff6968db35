import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { AdminConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

export type AdminService = RunningService<AdminConfig, PrismaClient>;

/** Migrates the `admin` schema and serves admin's routes (none yet: health, readiness, metrics). */
export function startAdmin(
  config: AdminConfig,
  overrides: Pick<StartServiceOptions<AdminConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<AdminService> {
  const prisma = createPrisma(PrismaClient, config.DATABASE_URL);
  return startService({ name: 'admin', config, prisma, migrationsDir: join(__dirname, '..', 'prisma', 'migrations'), ...overrides });
}
