import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { B2bConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

export type B2bService = RunningService<B2bConfig, PrismaClient>;

/** Migrates the `b2b` schema and serves b2b's routes (none yet: health, readiness, metrics). */
export function startB2b(
  config: B2bConfig,
  overrides: Pick<StartServiceOptions<B2bConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<B2bService> {
  const prisma = createPrisma(PrismaClient, config.DATABASE_URL);
  return startService({ name: 'b2b', config, prisma, migrationsDir: join(__dirname, '..', 'prisma', 'migrations'), ...overrides });
}
