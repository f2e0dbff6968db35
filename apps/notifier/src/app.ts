import path from 'node:path';
import { createPrisma } from '@pasar/db';
import { startService, type RunningService } from '@pasar/service-kit';
import type { NotifierConfig } from './config';
import { PrismaClient } from './generated/prisma/client';
import { consumeEmailRequests } from './mail/events';
import { serveSendEmail } from './mail/rpc';
import { createMailer, type Mailer } from './mail/transport';
import type { Logger } from './mail/deliver';

export const SERVICE_NAME = 'notifier';
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'prisma', 'migrations');

export interface NotifierOverrides {
  log?: Logger;
  /** Interface the HTTP server binds (default HOST or 127.0.0.1). */
  host?: string;
}

export type RunningNotifier = RunningService<NotifierConfig, PrismaClient> & { mailer: Mailer };

/**
 * Boots the notifier: migrations, NATS, the `notify.email.requested` consumer and the
 * `rpc.notifier.send_email` responder. HTTP serves only /healthz, /readyz and /metrics.
 */
export async function startNotifier(config: NotifierConfig, overrides: NotifierOverrides = {}): Promise<RunningNotifier> {
  const prisma = createPrisma(PrismaClient, config.DATABASE_URL);
  const mailer = createMailer(config);
  let running: RunningService<NotifierConfig, PrismaClient>;
  try {
    running = await startService({
      name: SERVICE_NAME,
      config,
      prisma,
      migrationsDir: MIGRATIONS_DIR,
      log: overrides.log,
      host: overrides.host,
      consumers: ({ bus, log }) => [consumeEmailRequests(bus, { prisma, mailer, log }, { backoffMs: config.EMAIL_RETRY_BACKOFF_MS })],
      rpc: ({ bus, log }) => [serveSendEmail(bus, { prisma, mailer, log })],
    });
  } catch (err) {
    mailer.close();
    await prisma.$disconnect().catch(() => undefined);
    throw err;
  }
  return {
    ...running,
    mailer,
    async close() {
      await running.close();
      mailer.close();
    },
  };
}
