import { enqueueEvent } from '@pasar/bus';
import { vendorShipmentStatusChanged, type SubOrderStatus } from '@pasar/contracts';
import { EVENT_SOURCE, type Tx } from '../deps';
import type { Prisma, Shipment } from '../generated/prisma/client';
import { TRANSITIONS, canApply, type ShipmentAction } from './rules';

/** Fields an action writes besides the status (tracking, timestamps, reason). */
export type ShipmentChanges = Omit<Prisma.ShipmentUpdateManyMutationInput, 'status' | 'updatedAt'>;

export type TransitionResult = { applied: true; shipment: Shipment } | { applied: false; status: SubOrderStatus } | { applied: false; status: null };

/** A lost compare-and-set means another writer committed a change; this many re-reads is plenty. */
const MAX_ATTEMPTS = 5;

/**
 * Applies `action` to the shipment's current status inside `tx`: a conditional update on the
 * status just read (compare-and-set), re-read after a lost race, so of two concurrent actions on
 * one shipment each sees the other's result and only allowed moves happen. Writes
 * vendor.shipment.status_changed to the outbox in the same transaction. Answers the updated row,
 * or the status that refuses the action (null: no such shipment in `where`).
 */
export async function transitionShipment(
  tx: Tx,
  where: { id: string; storeId?: string },
  action: ShipmentAction,
  changes: ShipmentChanges,
  at: Date,
): Promise<TransitionResult> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const current = await tx.shipment.findFirst({ where, select: { status: true } });
    if (!current) return { applied: false, status: null };
    if (!canApply(action, current.status)) return { applied: false, status: current.status };
    const [shipment] = await tx.shipment.updateManyAndReturn({
      where: { ...where, status: current.status },
      data: { ...changes, status: TRANSITIONS[action].to, updatedAt: at },
    });
    if (shipment) {
      await enqueueEvent(tx, vendorShipmentStatusChanged, statusChanged(shipment, current.status, at), EVENT_SOURCE);
      return { applied: true, shipment };
    }
  }
  throw new Error(`shipment ${where.id} kept changing; gave up after ${MAX_ATTEMPTS} attempts`);
}

function statusChanged(shipment: Shipment, previousStatus: SubOrderStatus, at: Date) {
  return {
    shipmentId: shipment.id,
    orderId: shipment.orderId,
    storeId: shipment.storeId,
    status: shipment.status,
    previousStatus,
    courier: shipment.courier,
    trackingId: shipment.trackingId,
    trackingUrl: shipment.trackingUrl,
    shippedAt: shipment.shippedAt?.toISOString() ?? null,
    deliveredAt: shipment.deliveredAt?.toISOString() ?? null,
    cancelledAt: shipment.cancelledAt?.toISOString() ?? null,
    reason: shipment.cancelReason,
    changedAt: at.toISOString(),
  };
}
