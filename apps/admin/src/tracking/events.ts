import { consumeWithInbox, type RunningConsumer } from '@pasar/bus';
import { vendorShipmentStatusChanged, type EventData } from '@pasar/contracts';
import type { Tx } from '../deps';
import type { AdminContext } from '../feature';

type ShipmentStatusChanged = EventData<typeof vendorShipmentStatusChanged>;

/** vendor.shipment.status_changed → the tracking index (settlement matching). */
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
