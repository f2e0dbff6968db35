import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { mountFeatures, startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { B2bConfig } from './config';
import { features } from './features';
import { PrismaClient } from './generated/prisma/client';

export type B2bService = RunningService<B2bConfig, PrismaClient>;

/** Migrates the `b2b` schema, starts every feature's consumers, rpc responders and workers, and serves its routes. */
export function startB2b(
  config: B2bConfig,
  overrides: Pick<StartServiceOptions<B2bConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<B2bService> {
  return startService({
    name: 'b2b',
    config,
    prisma: createPrisma(PrismaClient, config.DATABASE_URL),
    migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
    ...mountFeatures(features),
    ...overrides,
  });
}
