import { consumeWithInbox, type RunningConsumer } from '@pasar/bus';
import { vendorShipmentStatusChanged, type EventData } from '@pasar/contracts';
import type { Tx } from '../deps';
import type { AdminContext } from '../feature';

type ShipmentStatusChanged = EventData<typeof vendorShipmentStatusChanged>;

/** vendor.shipment.status_changed → the tracking index (settlement matching) and each shipment's latest state (reconciliation). */
export function trackingConsumers(ctx: AdminContext): RunningConsumer[] {
  return [
    consumeWithInbox(ctx.bus, {
      name: 'tracking-index',
      event: vendorShipmentStatusChanged,
      db: ctx.prisma,
      // most status changes carry no tracking id (pending_payment, paid, cancelled): acked as they come
      ignore: (change) => typeof change.trackingId !== 'string' || change.trackingId.trim() === '',
      handler: (change, { tx }) => indexTracking(tx, change),
    }),
    consumeWithInbox(ctx.bus, {
      name: 'shipment-state',
      event: vendorShipmentStatusChanged,
      db: ctx.prisma,
      handler: (change, { tx }) => recordShipmentState(tx, change),
    }),
  ];
}

/**
 * Keeps the shipment's tracking id in the index (a re-ship that corrects it adds the new one; the
 * old one stays, as a carrier may still bill it). Changes without a tracking id change nothing.
 */
export async function indexTracking(tx: Tx, change: ShipmentStatusChanged): Promise<void> {
  const trackingId = change.trackingId?.trim();
  if (!trackingId) return;
  const row = { shipmentId: change.shipmentId, orderId: change.orderId, courier: change.courier, updatedAt: new Date(change.changedAt) };
  await tx.trackingIndex.upsert({ where: { trackingId }, create: { trackingId, ...row }, update: row });
}

/**
 * Keeps each shipment's latest status and ship time (reconciliation: billed_cancelled, unbilled).
 * Changes commute: the newest `changedAt` wins, whatever order they arrive in, so a late or
 * repeated older change leaves the row as it is.
 */
export async function recordShipmentState(tx: Tx, change: ShipmentStatusChanged): Promise<void> {
  const changedAt = new Date(change.changedAt);
  const shippedAt = change.shippedAt ? new Date(change.shippedAt) : null;
  await tx.$executeRaw`
    INSERT INTO shipment_state (shipment_id, order_id, store_id, status, shipped_at, changed_at)
    VALUES (${change.shipmentId}::uuid, ${change.orderId}::uuid, ${change.storeId}::uuid, ${change.status}, ${shippedAt}, ${changedAt})
    ON CONFLICT (shipment_id) DO UPDATE
      SET status = EXCLUDED.status, shipped_at = COALESCE(EXCLUDED.shipped_at, shipment_state.shipped_at), changed_at = EXCLUDED.changed_at
      WHERE shipment_state.changed_at < EXCLUDED.changed_at`;
}
