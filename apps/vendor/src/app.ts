import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { mountFeatures, startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { VendorConfig } from './config';
import { features } from './features';
import { PrismaClient } from './generated/prisma/client';
import { registerWebhookMetrics } from './webhooks/metrics';
import { webhookGauges } from './webhooks/worker';

export type VendorService = RunningService<VendorConfig, PrismaClient>;

/** Migrates the `vendor` schema, starts every feature's consumers and rpc responders, and serves its routes. */
export async function startVendor(
  config: VendorConfig,
  overrides: Pick<StartServiceOptions<VendorConfig, PrismaClient>, 'log' | 'host'> = {},
): Promise<VendorService> {
  const vendor = await startService({
    name: 'vendor',
    config,
    prisma: createPrisma(PrismaClient, config.DATABASE_URL),
    migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
    ...mountFeatures(features),
    ...overrides,
  });
  registerWebhookMetrics(vendor.service.metrics, () => webhookGauges(vendor), (err) => vendor.log.warn({ err }, 'could not count webhooks for /metrics'));
  return vendor;
}
