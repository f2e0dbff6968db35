import { consumeWithInbox, type RunningConsumer } from '@pasar/bus';
import { adminShipmentBooked, checkoutOrderCreated, checkoutOrderPaid, checkoutOrderStatusChanged, type EventData, type OrderStatus } from '@pasar/contracts';
import { lockKey, now, type Tx, type VendorDeps } from '../deps';
import type { VendorContext } from '../feature';
import { trackingUrlFor } from './rules';
import { transitionShipment } from './transition';

type OrderCreated = EventData<typeof checkoutOrderCreated>;
type OrderPaid = EventData<typeof checkoutOrderPaid>;
type ShipmentBooked = EventData<typeof adminShipmentBooked>;
type OrderStatusChanged = EventData<typeof checkoutOrderStatusChanged>;

/** Parent order statuses that end an order unpaid: its shipments will never be paid. */
export const CLOSED_UNPAID: readonly OrderStatus[] = ['expired', 'payment_failed', 'cancelled'];
type Deps = Pick<VendorDeps, 'config' | 'clock'> & Pick<VendorContext, 'log'>;

/**
 * checkout.order.created → shipments; checkout.order.paid → paid; checkout.order.status_changed to
 * expired / payment_failed / cancelled → unpaid shipments cancelled; admin.shipment.booked → awaiting_pickup.
 */
export function shipmentConsumers(ctx: VendorContext): RunningConsumer[] {
  const { bus, prisma } = ctx;
  return [
    consumeWithInbox(bus, { name: 'shipments-order-created', event: checkoutOrderCreated, db: prisma, handler: (order, { tx }) => createShipments(tx, ctx, order) }),
    consumeWithInbox(bus, { name: 'shipments-order-paid', event: checkoutOrderPaid, db: prisma, handler: (order, { tx }) => markOrderPaid(tx, ctx, order) }),
    consumeWithInbox(bus, { name: 'shipments-order-closed', event: checkoutOrderStatusChanged, db: prisma, handler: (change, { tx }) => closeUnpaidOrder(tx, ctx, change) }),
    consumeWithInbox(bus, { name: 'shipments-booked', event: adminShipmentBooked, db: prisma, handler: (booking, { tx }) => applyBooking(tx, ctx, booking) }),
  ];
}

/**
 * One shipment per sub-order of a store that exists here, with the sub-order's id, its items and
 * the recipient address, status pending_payment. Idempotent (inbox, and rows keyed by checkout's
 * ids). When the order's paid event was handled first, the new shipments move on to paid at once.
 *
 * The created and paid handlers commute: both take the order's lock first, so whichever runs second
 * sees what the first committed (without it, two concurrent transactions each missed the other's
 * uncommitted row and the shipment stayed pending_payment for ever).
 */
export async function createShipments(tx: Tx, deps: Deps, order: OrderCreated): Promise<void> {
  await lockOrder(tx, order.orderId);
  const storeIds = [...new Set(order.subOrders.map((s) => s.storeId))];
  const known = new Set((await tx.store.findMany({ where: { id: { in: storeIds } }, select: { id: true } })).map((s) => s.id));
  const subOrders = order.subOrders.filter((s) => known.has(s.storeId));
  if (subOrders.length < order.subOrders.length) {
    deps.log.warn({ orderId: order.orderId, unknownStores: storeIds.filter((id) => !known.has(id)) }, 'sub-orders of unknown stores get no shipment');
  }
  if (subOrders.length === 0) return;
  const address = order.shippingAddress;
  await tx.shipment.createMany({
    skipDuplicates: true,
    data: subOrders.map((s) => ({
      id: s.subOrderId,
      orderId: order.orderId,
      shortId: order.shortId,
      storeId: s.storeId,
      customerId: order.customerId,
      shippingMethodId: s.shippingMethodId,
      subtotal: s.subtotal,
      shippingFee: s.shippingFee,
      total: s.total,
      recipientName: address.fullName,
      recipientPhone: address.phone,
      addressLine1: address.addressLine1,
      addressLine2: address.addressLine2,
      city: address.city,
      postcode: address.postcode,
      state: address.state,
      createdAt: new Date(order.createdAt),
    })),
  });
  await tx.shipmentItem.createMany({
    skipDuplicates: true,
    data: subOrders.flatMap((s) =>
      s.items.map((item) => ({
        id: item.orderItemId,
        shipmentId: s.subOrderId,
        productId: item.productId,
        variantId: item.variantId,
        productName: item.productName,
        variantName: item.variantName,
        quantity: item.quantity,
        unitPrice: item.unitPrice,
        weightKg: item.weightKg,
      })),
    ),
  });
  const paid = await tx.paidOrder.findUnique({ where: { orderId: order.orderId } });
  if (paid) await payShipments(tx, deps, order.orderId, paid.paidAt);
  const closed = await tx.closedOrder.findUnique({ where: { orderId: order.orderId } });
  if (closed) await closeShipments(tx, deps, order.orderId, closed.status, closed.closedAt);
}

/**
 * checkout closed the order unpaid (expired, payment_failed, cancelled): remembers it (for a created
 * event that comes later) and cancels its pending_payment shipments, with a status event each.
 * Other status changes are not vendor's business here.
 */
export async function closeUnpaidOrder(tx: Tx, deps: Deps, change: OrderStatusChanged): Promise<void> {
  if (!CLOSED_UNPAID.includes(change.status)) return;
  await lockOrder(tx, change.orderId);
  const closedAt = new Date(change.changedAt);
  await tx.closedOrder.createMany({ data: [{ orderId: change.orderId, status: change.status, closedAt }], skipDuplicates: true });
  await closeShipments(tx, deps, change.orderId, change.status, closedAt);
}

async function closeShipments(tx: Tx, deps: Deps, orderId: string, status: string, closedAt: Date): Promise<void> {
  const pending = await tx.shipment.findMany({ where: { orderId, status: 'pending_payment' }, select: { id: true }, orderBy: { id: 'asc' } });
  const at = now(deps);
  for (const { id } of pending) await transitionShipment(tx, { id }, 'close', { cancelledAt: closedAt, cancelReason: `order ${status}` }, at);
}

/** Remembers the payment (for a created event that comes later) and moves the order's shipments pending_payment → paid. */
export async function markOrderPaid(tx: Tx, deps: Deps, order: OrderPaid): Promise<void> {
  await lockOrder(tx, order.orderId);
  const paidAt = new Date(order.paidAt);
  await tx.paidOrder.createMany({ data: [{ orderId: order.orderId, paidAt }], skipDuplicates: true });
  await payShipments(tx, deps, order.orderId, paidAt);
}

/** Serialises the handlers of one order's events (created, paid, closed) for the rest of the transaction. */
function lockOrder(tx: Tx, orderId: string): Promise<void> {
  return lockKey(tx, `order:${orderId}`);
}

async function payShipments(tx: Tx, deps: Deps, orderId: string, paidAt: Date): Promise<void> {
  const pending = await tx.shipment.findMany({ where: { orderId, status: 'pending_payment' }, select: { id: true }, orderBy: { id: 'asc' } });
  const at = now(deps);
  for (const { id } of pending) await transitionShipment(tx, { id }, 'pay', { paidAt }, at);
}

/** A carrier booking: tracking fields and awaiting_pickup, from paid or processing; otherwise it changes nothing. */
export async function applyBooking(tx: Tx, deps: Deps, booking: ShipmentBooked): Promise<void> {
  const templates = { carrier_a: deps.config.CARRIER_A_TRACKING_URL, carrier_b: deps.config.CARRIER_B_TRACKING_URL };
  const changes = {
    courier: booking.carrier,
    trackingId: booking.trackingNumber,
    trackingUrl: trackingUrlFor(booking.carrier, booking.trackingNumber, booking.trackingUrl, templates),
  };
  const result = await transitionShipment(tx, { id: booking.shipmentId }, 'book', changes, now(deps));
  if (!result.applied) deps.log.warn({ shipmentId: booking.shipmentId, status: result.status }, 'booking ignored: shipment unknown or not bookable');
}
