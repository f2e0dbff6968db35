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
/** Whether a status (checked or not yet) is one of CLOSED_UNPAID. */
export const isClosedUnpaid = (status: unknown): boolean => (CLOSED_UNPAID as readonly unknown[]).includes(status);
/** The key every handler of one order's events locks first (created, paid, closed commute). */
const orderLockKey = (orderId: string): string => `order:${orderId}`;
/** `locked`: the caller's transaction already holds the order's lock (the consumer took it for its batch). */
interface OrderLock {
  locked?: boolean;
}
type Deps = Pick<VendorDeps, 'config' | 'clock'> & Pick<VendorContext, 'log'>;

/**
 * checkout.order.created → shipments; checkout.order.paid → paid; checkout.order.status_changed to
 * expired / payment_failed / cancelled → unpaid shipments cancelled; admin.shipment.booked → awaiting_pickup.
 */
export function shipmentConsumers(ctx: VendorContext): RunningConsumer[] {
  const { bus, prisma } = ctx;
  const byOrder = (event: { orderId: string }) => orderLockKey(event.orderId);
  return [
    consumeWithInbox(bus, {
      name: 'shipments-order-created',
      event: checkoutOrderCreated,
      db: prisma,
      lockKey: byOrder,
      handler: (order, { tx, locked }) => createShipments(tx, ctx, order, { locked }),
    }),
    consumeWithInbox(bus, { name: 'shipments-order-paid', event: checkoutOrderPaid, db: prisma, lockKey: byOrder, handler: (order, { tx, locked }) => markOrderPaid(tx, ctx, order, { locked }) }),
    consumeWithInbox(bus, {
      name: 'shipments-order-closed',
      event: checkoutOrderStatusChanged,
      db: prisma,
      // most status changes (paid, shipped, ...) close nothing: acked without parsing or a transaction
      ignore: (change) => !isClosedUnpaid(change.status),
      lockKey: byOrder,
      handler: (change, { tx, locked }) => closeUnpaidOrder(tx, ctx, change, { locked }),
    }),
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
export async function createShipments(tx: Tx, deps: Deps, order: OrderCreated, lock: OrderLock = {}): Promise<void> {
  await lockOrder(tx, order.orderId, lock);
  const address = order.shippingAddress;
  const subOrders = order.subOrders;
  const items = subOrders.flatMap((s) => s.items.map((item) => ({ ...item, shipmentId: s.subOrderId })));
  // one statement (one round trip): the shipments of the stores known here with their items (the
  // foreign keys are checked at its end), and whether the order was already paid or closed; it
  // reads after the order's lock, so it sees what the paid and closed handlers committed
  const [written] = await tx.$queryRaw<{ knownStoreIds: string[]; paidAt: Date | null; closedStatus: string | null; closedAt: Date | null }[]>`
    WITH known AS (
      SELECT s.id, s.store_id, s.shipping_method_id, s.subtotal, s.shipping_fee, s.total
      FROM unnest(${subOrders.map((s) => s.subOrderId)}::uuid[], ${subOrders.map((s) => s.storeId)}::uuid[],
        ${subOrders.map((s) => s.shippingMethodId)}::uuid[], ${subOrders.map((s) => s.subtotal)}::numeric[],
        ${subOrders.map((s) => s.shippingFee)}::numeric[], ${subOrders.map((s) => s.total)}::numeric[])
        AS s(id, store_id, shipping_method_id, subtotal, shipping_fee, total)
      WHERE EXISTS (SELECT 1 FROM store WHERE store.id = s.store_id)
    ), shipments AS (
      INSERT INTO shipment (id, order_id, short_id, store_id, customer_id, shipping_method_id, subtotal, shipping_fee, total,
        recipient_name, recipient_phone, address_line_1, address_line_2, city, postcode, state, created_at)
      SELECT id, ${order.orderId}::uuid, ${order.shortId}, store_id, ${order.customerId}::uuid, shipping_method_id, subtotal, shipping_fee, total,
        ${address.fullName}, ${address.phone}, ${address.addressLine1}, ${address.addressLine2}, ${address.city}, ${address.postcode},
        ${address.state}, ${new Date(order.createdAt)}::timestamptz
      FROM known
      ON CONFLICT (id) DO NOTHING
    ), shipment_items AS (
      INSERT INTO shipment_item (id, shipment_id, product_id, variant_id, product_name, variant_name, quantity, unit_price, weight_kg)
      SELECT i.id, i.shipment_id, i.product_id, i.variant_id, i.product_name, i.variant_name, i.quantity, i.unit_price, i.weight_kg
      FROM unnest(${items.map((i) => i.orderItemId)}::uuid[], ${items.map((i) => i.shipmentId)}::uuid[], ${items.map((i) => i.productId)}::uuid[],
        ${items.map((i) => i.variantId)}::uuid[], ${items.map((i) => i.productName)}::text[], ${items.map((i) => i.variantName)}::text[],
        ${items.map((i) => i.quantity)}::int[], ${items.map((i) => i.unitPrice)}::numeric[], ${items.map((i) => i.weightKg)}::numeric[])
        AS i(id, shipment_id, product_id, variant_id, product_name, variant_name, quantity, unit_price, weight_kg)
      WHERE i.shipment_id IN (SELECT id FROM known)
      ON CONFLICT (id) DO NOTHING
    )
    SELECT COALESCE((SELECT array_agg(DISTINCT store_id::text) FROM known), '{}') AS "knownStoreIds",
      (SELECT paid_at FROM paid_order WHERE order_id = ${order.orderId}::uuid) AS "paidAt",
      (SELECT status FROM closed_order WHERE order_id = ${order.orderId}::uuid) AS "closedStatus",
      (SELECT closed_at FROM closed_order WHERE order_id = ${order.orderId}::uuid) AS "closedAt"`;
  const known = new Set(written.knownStoreIds);
  const unknownStores = [...new Set(subOrders.map((s) => s.storeId))].filter((id) => !known.has(id));
  if (unknownStores.length) deps.log.warn({ orderId: order.orderId, unknownStores }, 'sub-orders of unknown stores get no shipment');
  if (known.size === 0) return;
  if (written.paidAt) await payShipments(tx, deps, order.orderId, written.paidAt);
  if (written.closedStatus && written.closedAt) await closeShipments(tx, deps, order.orderId, written.closedStatus, written.closedAt);
}

/**
 * checkout closed the order unpaid (expired, payment_failed, cancelled): remembers it (for a created
 * event that comes later) and cancels its pending_payment shipments, with a status event each.
 * Other status changes are not vendor's business here.
 */
export async function closeUnpaidOrder(tx: Tx, deps: Deps, change: OrderStatusChanged, lock: OrderLock = {}): Promise<void> {
  if (!isClosedUnpaid(change.status)) return;
  await lockOrder(tx, change.orderId, lock);
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
export async function markOrderPaid(tx: Tx, deps: Deps, order: OrderPaid, lock: OrderLock = {}): Promise<void> {
  await lockOrder(tx, order.orderId, lock);
  const paidAt = new Date(order.paidAt);
  await tx.paidOrder.createMany({ data: [{ orderId: order.orderId, paidAt }], skipDuplicates: true });
  await payShipments(tx, deps, order.orderId, paidAt);
}

/** Serialises the handlers of one order's events (created, paid, closed) for the rest of the transaction. */
async function lockOrder(tx: Tx, orderId: string, { locked = false }: OrderLock): Promise<void> {
  if (!locked) await lockKey(tx, orderLockKey(orderId));
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
