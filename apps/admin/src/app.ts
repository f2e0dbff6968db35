import { join } from 'node:path';
import { SETTLEMENT_IMPORT_BODY_LIMIT } from '@pasar/contracts';
import { createPrisma } from '@pasar/db';
import { mountFeatures, startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { AdminConfig } from './config';
import { features } from './features';
import { PrismaClient } from './generated/prisma/client';
import { LABEL_PATH } from './labels/rules';
import { SETTLEMENT_IMPORT_PATH } from './settlements/routes';

export type AdminService = RunningService<AdminConfig, PrismaClient>;

/**
 * Migrates the `admin` schema and serves admin's features: vendor applications, carrier bookings
 * (with the retry worker) and labels, the tracking index consumer, settlements. The signed label
 * URL is public (its signature is the permission); the settlement import takes a larger body.
 */
export function startAdmin(
  config: AdminConfig,
  overrides: Pick<StartServiceOptions<AdminConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<AdminService> {
  return startService({
    name: 'admin',
    config,
    prisma: createPrisma(PrismaClient, config.DATABASE_URL),
    migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
    publicPaths: [`${LABEL_PATH}/*`],
    http: () => ({ routeBodyLimits: { [SETTLEMENT_IMPORT_PATH]: SETTLEMENT_IMPORT_BODY_LIMIT } }),
    ...mountFeatures(features),
    ...overrides,
  });
}
