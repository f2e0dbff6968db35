import { join } from 'node:path';
import { createPrisma } from '@pasar/db';
import { mountFeatures, startService, type RunningService, type StartServiceOptions } from '@pasar/service-kit';
import type { CheckoutConfig } from './config';
import { features } from './features';
import { PrismaClient } from './generated/prisma/client';

/**
 * The payment gateway's notification is a form of about ten short fields (tranID, orderid, status,
 * domain, amount, currency, paydate, appcode, skey, channel, error_code/desc, extraP): about 240
 * bytes form-encoded; 620 bytes with every contract field at its longest, 1.6 KiB if all of it were
 * percent-encoded. 8 KiB leaves room for fields the gateway adds; anything larger is not from the
 * gateway (413, nothing stored).
 */
export const PAYMENT_NOTIFY_BODY_LIMIT = '8kb';

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
    http: () => ({ routeBodyLimits: { '/payments/notify': PAYMENT_NOTIFY_BODY_LIMIT } }),
    ...mountFeatures(features),
    ...overrides,
  });
}
