import { startPeriodic, type PeriodicWorker } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';
import { releaseOrderHoldings } from './holdings';
import { enqueueOrderStatusChanges } from './order-events';
import { systemClock } from '../deps';

/** What the expiry sweep needs. */
export interface ExpiryDeps {
  prisma: PrismaClient;
  log: Logger;
}

/** Orders claimed per transaction. */
export const EXPIRY_BATCH_SIZE = 100;

/**
 * Expires the unpaid orders whose expires_at has passed (DESIGN §5), a batch per transaction:
 * claims them with `FOR UPDATE SKIP LOCKED` (so concurrent sweeps, on one instance or many, take
 * disjoint rows and a row being paid right now is left to its payment), moves order → expired,
 * payment → expired and sub-orders → cancelled, releases what they held and enqueues
 * `checkout.order.status_changed`. Answers how many orders it expired.
 */
export async function expireDueOrders(deps: ExpiryDeps, now: Date = systemClock(), batchSize = EXPIRY_BATCH_SIZE): Promise<number> {
  let expired = 0;
  for (;;) {
    const claimed = await deps.prisma.$transaction(async (tx) => {
      const due = await tx.$queryRaw<{ id: string; is_b2b: boolean; company_id: string | null }[]>`
        SELECT id, is_b2b, company_id FROM "order"
        WHERE status = 'pending_payment' AND expires_at <= ${now}
        ORDER BY expires_at, id
        LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED`;
      if (due.length === 0) return 0;
      const ids = due.map((row) => row.id);
      await tx.order.updateMany({ where: { id: { in: ids } }, data: { status: 'expired' } });
      await tx.payment.updateMany({ where: { orderId: { in: ids }, status: 'pending' }, data: { status: 'expired' } });
      await tx.subOrder.updateMany({ where: { orderId: { in: ids }, status: 'pending_payment' }, data: { status: 'cancelled', cancelledAt: now } });
      await releaseOrderHoldings(tx, ids);
      await enqueueOrderStatusChanges(
        tx,
        due.map((row) => ({ orderId: row.id, isB2b: row.is_b2b, companyId: row.company_id, previousStatus: 'pending_payment', status: 'expired' })),
        now,
      );
      return due.length;
    });
    expired += claimed;
    if (claimed < batchSize) return expired;
  }
}

/**
 * The durable sweep (feature `workers`): runs `expireDueOrders` at start and then every
 * `intervalMs`. Nothing lives in memory: the due orders are the rows themselves, so a restart or
 * a second instance loses or doubles nothing.
 */
export function startExpirySweep(deps: ExpiryDeps, intervalMs: number, clock: () => Date = systemClock): PeriodicWorker {
  return startPeriodic({
    name: 'order-expiry-sweep',
    intervalMs,
    log: deps.log,
    async round() {
      const count = await expireDueOrders(deps, clock());
      if (count > 0) deps.log.info({ count }, 'expired unpaid orders and released their holdings');
    },
  });
}
