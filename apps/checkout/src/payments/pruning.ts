import { startPeriodic, type PeriodicWorker } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';

export interface NotificationRetention {
  /** Verified notifications (the payment's evidence) older than this are deleted. */
  verifiedMs: number;
  /** Notifications that did not verify (anyone can send them) older than this are deleted. */
  unverifiedMs: number;
}

/** Rows per DELETE statement. */
const BATCH = 1000;

/**
 * Deletes payment notifications past their retention, a batch per statement. Safe with any number
 * of instances at once: each batch claims its rows with `FOR UPDATE SKIP LOCKED`. Answers how many
 * rows it deleted.
 */
export async function prunePaymentNotifications(prisma: PrismaClient, retention: NotificationRetention, now: Date = new Date()): Promise<number> {
  const verifiedBefore = new Date(now.getTime() - retention.verifiedMs);
  const unverifiedBefore = new Date(now.getTime() - retention.unverifiedMs);
  let deleted = 0;
  for (;;) {
    const n = await prisma.$executeRaw`
      WITH doomed AS (
        SELECT id FROM payment_notification
        WHERE received_at < CASE WHEN verified THEN ${verifiedBefore}::timestamptz ELSE ${unverifiedBefore}::timestamptz END
        ORDER BY received_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      DELETE FROM payment_notification p USING doomed WHERE p.id = doomed.id`;
    deleted += n;
    if (n < BATCH) return deleted;
  }
}

/**
 * The pruning worker (feature `workers`): prunes at start and then every `intervalMs`. Nothing
 * lives in memory, so restarts and extra instances change nothing.
 */
export function startNotificationPruning(prisma: PrismaClient, options: NotificationRetention & { intervalMs: number; log: Logger }): PeriodicWorker {
  return startPeriodic({
    name: 'payment-notification-pruning',
    intervalMs: options.intervalMs,
    log: options.log,
    async round() {
      const deleted = await prunePaymentNotifications(prisma, options);
      if (deleted > 0) options.log.info({ deleted }, 'pruned old payment notifications');
    },
  });
}
