import { startPeriodic, type PeriodicWorker } from '@pasar/service-kit';
import { now, type AdminDeps } from '../deps';
import type { CarrierBooking } from '../generated/prisma/client';
import { recordAttempt, requestOf } from './bookings';
import { leaseMs } from './rules';

type Deps = Pick<AdminDeps, 'prisma' | 'bus' | 'config' | 'log' | 'carriers' | 'storage' | 'clock'>;

const BATCH_SIZE = 10;

/**
 * Claims the bookings due for a retry (STYLE §2): pending_retry, next_attempt_at passed, not
 * leased. The claim takes a lease (claimed_until) and counts the attempt in one statement with
 * `FOR UPDATE SKIP LOCKED`, and commits before any carrier call, so instances take disjoint rows
 * and a crash mid-call only delays the retry until the lease ends.
 */
export async function claimDueBookings(deps: Pick<Deps, 'prisma' | 'config' | 'clock'>, limit = BATCH_SIZE): Promise<CarrierBooking[]> {
  const at = now(deps);
  const leaseEnd = new Date(at.getTime() + leaseMs(deps.config.CARRIER_TIMEOUT_MS));
  const claimed = await deps.prisma.$queryRaw<{ shipment_id: string }[]>`
    UPDATE carrier_booking SET claimed_until = ${leaseEnd}, attempts = attempts + 1, updated_at = ${at}
    WHERE shipment_id IN (SELECT shipment_id FROM carrier_booking
                          WHERE status = 'pending_retry' AND next_attempt_at <= ${at}
                            AND (claimed_until IS NULL OR claimed_until < ${at})
                          ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING shipment_id`;
  if (claimed.length === 0) return [];
  return deps.prisma.carrierBooking.findMany({ where: { shipmentId: { in: claimed.map((row) => row.shipment_id) } } });
}

/**
 * One round: claim what is due, call the carrier for each (at once, so every call ends inside its
 * lease), record each outcome. Returns how many were attempted.
 */
export async function retryDueBookings(deps: Deps): Promise<number> {
  const due = await claimDueBookings(deps);
  await Promise.all(
    due.map(async (booking) => {
      const outcome = await deps.carriers[booking.carrier].book(requestOf(booking));
      const recorded = await recordAttempt(deps, booking, outcome);
      deps.log.info({ shipmentId: booking.shipmentId, attempts: recorded.attempts, status: recorded.status }, 'carrier booking retried');
    }),
  );
  return due.length;
}

/** The durable retry worker: a round every CARRIER_RETRY_POLL_MS (at once again while rounds find work); stops cleanly. */
export function startRetryWorker(deps: Deps): PeriodicWorker {
  return startPeriodic({
    name: 'carrier-booking-retries',
    intervalMs: deps.config.CARRIER_RETRY_POLL_MS,
    log: deps.log,
    round: async () => (await retryDueBookings(deps)) > 0,
  });
}
