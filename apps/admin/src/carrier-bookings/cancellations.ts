import { consumeWithInbox, type RunningConsumer } from '@pasar/bus';
import { vendorShipmentStatusChanged, type EventData } from '@pasar/contracts';
import type { Tx } from '../deps';
import type { AdminContext } from '../feature';

type ShipmentStatusChanged = EventData<typeof vendorShipmentStatusChanged>;

/** vendor.shipment.status_changed to `cancelled` → the shipment's booking retries stop. */
export function cancellationConsumer(ctx: AdminContext): RunningConsumer {
  return consumeWithInbox(ctx.bus, {
    name: 'carrier-booking-cancellations',
    event: vendorShipmentStatusChanged,
    db: ctx.prisma,
    ignore: (change) => change.status !== 'cancelled',
    handler: async (change, { tx }) => {
      await stopRetries(tx, change);
    },
  });
}

/**
 * A booking still being retried for a cancelled shipment stops: status `cancelled`, no next
 * attempt, and last_error says why. An attempt in flight records nothing when it ends (its outcome
 * is recorded only while the row is still pending_retry). Booked or failed bookings are left alone.
 */
export async function stopRetries(tx: Tx, change: ShipmentStatusChanged): Promise<number> {
  const at = change.cancelledAt ?? change.changedAt;
  const why = `retries stopped: the shipment was cancelled at ${at}${change.reason ? ` (${change.reason})` : ''}`;
  const { count } = await tx.carrierBooking.updateMany({
    where: { shipmentId: change.shipmentId, status: 'pending_retry' },
    data: { status: 'cancelled', nextAttemptAt: null, claimedUntil: null, lastError: why.slice(0, 1000) },
  });
  return count;
}
