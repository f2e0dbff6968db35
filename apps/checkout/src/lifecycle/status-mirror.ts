import { consumeWithInbox, type Bus, type RunningConsumer } from '@pasar/bus';
import { vendorShipmentStatusChanged, type EventData } from '@pasar/contracts';
import type { Logger } from 'pino';
import type { Order, Prisma, PrismaClient, SubOrder } from '../generated/prisma/client';
import { releaseStock } from './holdings';
import { enqueueOrderStatusChanges } from './order-events';
import { lockOrder } from './order-paid';
import { creditPoints, reversePoints } from '../loyalty/ledger';
import { acceptsShipmentStatus, advanceParentStatus, pointsToReverse, redeemedPointsToGiveBack } from './rules';

type Tx = Prisma.TransactionClient;
export type ShipmentStatusChanged = EventData<typeof vendorShipmentStatusChanged>;

/** Mirrors vendor.shipment.status_changed onto the sub-orders (once per event id). */
export function shipmentStatusConsumer(bus: Bus, prisma: PrismaClient, log: Logger): RunningConsumer {
  return consumeWithInbox(bus, {
    name: 'shipment-status-mirror',
    event: vendorShipmentStatusChanged,
    db: prisma,
    handler: (event, { tx, requestId }) => mirrorShipmentStatus(tx, event, log, requestId),
  });
}

/**
 * Applies a shipment's new status to its sub-order (status, courier, tracking, timestamps), with
 * the parent order row locked so that two deliveries of one change take turns. A cancel releases
 * the sub-order's stock, adds its total to the payment's refunded_amount (never above the amount),
 * gives back its share of the points the order redeemed and takes back its share of the points
 * earned (both by paid subtotal; cancelling every sub-order gives back all redeemed points and
 * takes back all earned ones); a cancelled sub-order is final, so a second
 * cancel (another event id for the same change) does nothing. Then the parent advances
 * (`advanceParentStatus`) and `checkout.order.status_changed` is enqueued when it moved.
 */
export async function mirrorShipmentStatus(tx: Tx, event: ShipmentStatusChanged, log: Logger, requestId?: string): Promise<void> {
  const order = await lockOrder(tx, event.orderId);
  const subOrders = order ? await tx.subOrder.findMany({ where: { orderId: order.id } }) : [];
  const subOrder = subOrders.find((s) => s.id === event.shipmentId);
  if (!order || !subOrder) {
    log.warn({ shipmentId: event.shipmentId, orderId: event.orderId }, 'shipment status for an unknown sub-order; ignored');
    return;
  }
  if (!acceptsShipmentStatus(subOrder.status, event.status)) {
    log.info({ shipmentId: subOrder.id, current: subOrder.status, reported: event.status }, 'stale or final shipment status; ignored');
    return;
  }
  await tx.subOrder.update({
    where: { id: subOrder.id },
    data: {
      status: event.status,
      courier: event.courier ?? subOrder.courier,
      trackingId: event.trackingId ?? subOrder.trackingId,
      trackingUrl: event.trackingUrl ?? subOrder.trackingUrl,
      shippedAt: event.shippedAt ? new Date(event.shippedAt) : subOrder.shippedAt,
      deliveredAt: event.deliveredAt ? new Date(event.deliveredAt) : subOrder.deliveredAt,
      cancelledAt: event.cancelledAt ? new Date(event.cancelledAt) : subOrder.cancelledAt,
    },
  });
  if (event.status === 'cancelled') await settleCancelledSubOrder(tx, order, subOrder, subOrders);

  const statuses = subOrders.map((s) => (s.id === subOrder.id ? event.status : s.status));
  const next = advanceParentStatus(order.status, statuses);
  if (next === order.status) return;
  await tx.order.update({ where: { id: order.id }, data: { status: next } });
  await enqueueOrderStatusChanges(tx, [{ orderId: order.id, isB2b: order.isB2b, companyId: order.companyId, previousStatus: order.status, status: next }], new Date(event.changedAt), requestId);
}

/** The money and goods side of a vendor cancel; runs once, when the sub-order becomes cancelled. */
async function settleCancelledSubOrder(tx: Tx, order: Order, cancelled: SubOrder, subOrders: readonly SubOrder[]): Promise<void> {
  const items = await tx.orderItem.findMany({ where: { subOrderId: cancelled.id }, select: { productId: true, variantId: true, quantity: true } });
  await releaseStock(tx, items);
  await tx.$executeRaw`
    UPDATE payment SET refunded_amount = LEAST(amount, refunded_amount + ${cancelled.total.toFixed(2)}::numeric), updated_at = now()
    WHERE order_id = ${order.id}::uuid AND status = 'paid'`;
  const weighted = subOrders.map((s) => ({
    id: s.id,
    paidSubtotal: s.subtotal.minus(s.discount),
    cancelled: s.status === 'cancelled',
  }));
  // the redeemed points come back first, so the earned ones are taken back from the whole balance
  const givenBack = redeemedPointsToGiveBack(order.pointsRedeemed, weighted, cancelled.id);
  await creditPoints(tx, 'release', { customerId: order.customerId, points: givenBack, orderId: order.id, subOrderId: cancelled.id });
  const due = pointsToReverse(order.pointsEarned, weighted, cancelled.id);
  await reversePoints(tx, { customerId: order.customerId, points: due, orderId: order.id, subOrderId: cancelled.id });
}
