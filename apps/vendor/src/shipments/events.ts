import { consumeWithInbox, type RunningConsumer, type SqlTx } from '@pasar/bus';
import { lockKey, runStatement } from '@pasar/db';
import {
  adminShipmentBooked,
  checkoutOrderCreated,
  checkoutOrderPaid,
  checkoutOrderStatusChanged,
  vendorShipmentStatusChanged,
  type EventData,
  type OrderStatus,
} from '@pasar/contracts';
import { EVENT_SOURCE, now, type Tx, type VendorDeps } from '../deps';
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
      plainSql: true,
      lockKey: byOrder,
      // a batch of orders in one statement
      handleAll: (orders, { tx, locked }) => createShipmentsOf(tx, ctx, orders, { locked }),
    }),
    consumeWithInbox(bus, {
      name: 'shipments-order-paid',
      event: checkoutOrderPaid,
      db: prisma,
      plainSql: true,
      lockKey: byOrder,
      handler: (order, { tx, locked }) => markOrderPaid(tx, ctx, order, { locked }),
    }),
    consumeWithInbox(bus, {
      name: 'shipments-order-closed',
      event: checkoutOrderStatusChanged,
      db: prisma,
      plainSql: true,
      // most status changes (paid, shipped, ...) close nothing: acked without parsing or a transaction
      ignore: (change) => !isClosedUnpaid(change.status),
      lockKey: byOrder,
      handler: (change, { tx, locked }) => closeUnpaidOrder(tx, ctx, change, { locked }),
    }),
    consumeWithInbox(bus, { name: 'shipments-booked', event: adminShipmentBooked, db: prisma, handler: (booking, { tx }) => applyBooking(tx, ctx, booking) }),
  ];
}

/**
 * The transaction the order handlers run in: the consumers' plain pg client (hot path, named
 * prepared statements) or a Prisma transaction client (tests, one-off callers). Both run the same
 * statement text.
 */
export type OrderTx = Tx | SqlTx;

/**
 * The outbox rows of vendor.shipment.status_changed for the shipments a CTE named `moved` returned
 * (what transitionShipment enqueues: one event per shipment, in id order, envelope built here).
 * Placeholders: previous status, changed at (also the row's updated_at, so typed timestamptz: formatted here as
 * JavaScript's toISOString does), occurred at (ISO text), type, version, source.
 */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
function statusEventsCte(p: { previous: string; changedAt: string; occurredAt: string; type: string; version: string; source: string }): string {
  return `events AS (
      INSERT INTO outbox (id, type, payload, headers)
      SELECT e.event_id, ${p.type}::text, jsonb_build_object('id', e.event_id, 'type', ${p.type}::text, 'version', ${p.version}::int, 'source', ${p.source}::text,
        'occurredAt', ${p.occurredAt}::text, 'data', jsonb_build_object(
          'shipmentId', e.id, 'orderId', e.order_id, 'storeId', e.store_id, 'status', e.status, 'previousStatus', ${p.previous}::text,
          'courier', e.courier, 'trackingId', e.tracking_id, 'trackingUrl', e.tracking_url,
          'shippedAt', ${iso('e.shipped_at')}, 'deliveredAt', ${iso('e.delivered_at')}, 'cancelledAt', ${iso('e.cancelled_at')},
          'reason', e.cancel_reason, 'changedAt', ${iso(`${p.changedAt}::timestamptz`)})), '{}'
      FROM (SELECT gen_random_uuid() AS event_id, m.* FROM moved m WHERE m.status <> 'pending_payment' ORDER BY m.id) AS e
    )`;
}
/** The values statusEventsCte's placeholders take after the statement's own, in that order. */
const eventValues = (at: Date) => [at.toISOString(), new Date().toISOString(), vendorShipmentStatusChanged.type, vendorShipmentStatusChanged.version, EVENT_SOURCE.source];

/**
 * The shipments of the known stores with their items, for the sub-orders of one or more orders
 * (one row per sub-order: the order's own fields repeat on each), already paid (or cancelled) when
 * the order's paid (closed) event came first, with their status events: what inserting them
 * pending_payment and then transitioning them did, in one statement. Paid wins over closed, as
 * before (pay ran first).
 */
const CREATE_SHIPMENTS = {
  name: 'vendor-create-shipments',
  text: `WITH known AS (
      SELECT s.*
      FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
          $11::timestamptz[], $12::uuid[], $13::uuid[], $14::uuid[], $15::numeric[], $16::numeric[], $17::numeric[])
        AS s(order_id, short_id, customer_id, recipient_name, recipient_phone, address_line_1, address_line_2, city, postcode, state,
          created_at, id, store_id, shipping_method_id, subtotal, shipping_fee, total)
      WHERE EXISTS (SELECT 1 FROM store WHERE store.id = s.store_id)
    ), moved AS (
      INSERT INTO shipment (id, order_id, short_id, store_id, customer_id, shipping_method_id, subtotal, shipping_fee, total,
        recipient_name, recipient_phone, address_line_1, address_line_2, city, postcode, state, created_at,
        status, paid_at, cancelled_at, cancel_reason, updated_at)
      SELECT k.id, k.order_id, k.short_id, k.store_id, k.customer_id, k.shipping_method_id, k.subtotal, k.shipping_fee, k.total,
        k.recipient_name, k.recipient_phone, k.address_line_1, k.address_line_2, k.city, k.postcode, k.state, k.created_at,
        CASE WHEN paid.paid_at IS NOT NULL THEN 'paid' WHEN closed.status IS NOT NULL THEN 'cancelled' ELSE 'pending_payment' END::shipment_status,
        paid.paid_at,
        CASE WHEN paid.paid_at IS NULL THEN closed.closed_at END,
        CASE WHEN paid.paid_at IS NULL AND closed.status IS NOT NULL THEN 'order ' || closed.status END,
        CASE WHEN paid.paid_at IS NOT NULL OR closed.status IS NOT NULL THEN $27::timestamptz ELSE now() END
      FROM known k
        LEFT JOIN paid_order paid ON paid.order_id = k.order_id
        LEFT JOIN closed_order closed ON closed.order_id = k.order_id
      ON CONFLICT (id) DO NOTHING
      RETURNING *
    ), shipment_items AS (
      INSERT INTO shipment_item (id, shipment_id, product_id, variant_id, product_name, variant_name, quantity, unit_price, weight_kg)
      SELECT i.id, i.shipment_id, i.product_id, i.variant_id, i.product_name, i.variant_name, i.quantity, i.unit_price, i.weight_kg
      FROM unnest($18::uuid[], $19::uuid[], $20::uuid[], $21::uuid[], $22::text[], $23::text[], $24::int[], $25::numeric[], $26::numeric[])
        AS i(id, shipment_id, product_id, variant_id, product_name, variant_name, quantity, unit_price, weight_kg)
      WHERE i.shipment_id IN (SELECT id FROM known)
      ON CONFLICT (id) DO NOTHING
    ), ${statusEventsCte({ previous: "'pending_payment'", changedAt: '$27', occurredAt: '$28', type: '$29', version: '$30', source: '$31' })}
    SELECT COALESCE((SELECT array_agg(DISTINCT store_id::text) FROM known), '{}') AS "knownStoreIds"`,
};

/** Remembers the payment and moves the order's pending_payment shipments to paid, with their events. */
const MARK_ORDER_PAID = {
  name: 'vendor-mark-order-paid',
  text: `WITH remembered AS (
      INSERT INTO paid_order (order_id, paid_at) VALUES ($1::uuid, $2::timestamptz) ON CONFLICT DO NOTHING
    ), moved AS (
      UPDATE shipment SET status = 'paid', paid_at = $2::timestamptz, updated_at = $3::timestamptz
      WHERE order_id = $1::uuid AND status = 'pending_payment'
      RETURNING *
    ), ${statusEventsCte({ previous: "'pending_payment'", changedAt: '$3', occurredAt: '$4', type: '$5', version: '$6', source: '$7' })}
    SELECT count(*)::int AS moved FROM moved`,
};

/** Remembers the closing and cancels the order's pending_payment shipments, with their events. */
const CLOSE_UNPAID_ORDER = {
  name: 'vendor-close-unpaid-order',
  text: `WITH remembered AS (
      INSERT INTO closed_order (order_id, status, closed_at) VALUES ($1::uuid, $2::text, $3::timestamptz) ON CONFLICT DO NOTHING
    ), moved AS (
      UPDATE shipment SET status = 'cancelled', cancelled_at = $3::timestamptz, cancel_reason = 'order ' || $2::text, updated_at = $4::timestamptz
      WHERE order_id = $1::uuid AND status = 'pending_payment'
      RETURNING *
    ), ${statusEventsCte({ previous: "'pending_payment'", changedAt: '$4', occurredAt: '$5', type: '$6', version: '$7', source: '$8' })}
    SELECT count(*)::int AS moved FROM moved`,
};

/**
 * One shipment per sub-order of a store that exists here, with the sub-order's id, its items and
 * the recipient address, status pending_payment. Idempotent (inbox, and rows keyed by checkout's
 * ids). When the order's paid (or closed) event was handled first, the new shipments start paid
 * (cancelled), with the status event the transition writes. One statement after the order's lock.
 *
 * The created and paid handlers commute: both take the order's lock first, so whichever runs second
 * sees what the first committed (without it, two concurrent transactions each missed the other's
 * uncommitted row and the shipment stayed pending_payment for ever). The lock is its own statement:
 * a statement's snapshot is taken before it waits for a lock it takes itself.
 */
export function createShipments(tx: OrderTx, deps: Deps, order: OrderCreated, lock: OrderLock = {}): Promise<void> {
  return createShipmentsOf(tx, deps, [order], lock);
}

/**
 * createShipments for several orders in ONE statement (the created consumer's batch): what
 * createShipments on each in turn does. Without `locked`, the orders' locks are taken first, in
 * sorted order (as the consumer takes a batch's).
 */
export async function createShipmentsOf(tx: OrderTx, deps: Deps, orders: readonly OrderCreated[], { locked = false }: OrderLock = {}): Promise<void> {
  for (const orderId of [...new Set(orders.map((o) => o.orderId))].sort()) await lockOrder(tx, orderId, { locked });
  const rows = orders.flatMap((order) => order.subOrders.map((subOrder) => ({ order, subOrder })));
  const items = rows.flatMap(({ subOrder }) => subOrder.items.map((item) => ({ ...item, shipmentId: subOrder.subOrderId })));
  const [written] = await runStatement<{ knownStoreIds: string[] }>(tx, CREATE_SHIPMENTS, [
    rows.map((r) => r.order.orderId),
    rows.map((r) => r.order.shortId),
    rows.map((r) => r.order.customerId),
    rows.map((r) => r.order.shippingAddress.fullName),
    rows.map((r) => r.order.shippingAddress.phone),
    rows.map((r) => r.order.shippingAddress.addressLine1),
    rows.map((r) => r.order.shippingAddress.addressLine2),
    rows.map((r) => r.order.shippingAddress.city),
    rows.map((r) => r.order.shippingAddress.postcode),
    rows.map((r) => r.order.shippingAddress.state),
    rows.map((r) => new Date(r.order.createdAt).toISOString()),
    rows.map((r) => r.subOrder.subOrderId),
    rows.map((r) => r.subOrder.storeId),
    rows.map((r) => r.subOrder.shippingMethodId),
    rows.map((r) => r.subOrder.subtotal),
    rows.map((r) => r.subOrder.shippingFee),
    rows.map((r) => r.subOrder.total),
    items.map((i) => i.orderItemId),
    items.map((i) => i.shipmentId),
    items.map((i) => i.productId),
    items.map((i) => i.variantId),
    items.map((i) => i.productName),
    items.map((i) => i.variantName),
    items.map((i) => i.quantity),
    items.map((i) => i.unitPrice),
    items.map((i) => i.weightKg),
    ...eventValues(now(deps)),
  ]);
  const known = new Set(written.knownStoreIds);
  for (const order of orders) {
    const unknownStores = [...new Set(order.subOrders.map((s) => s.storeId))].filter((id) => !known.has(id));
    if (unknownStores.length) deps.log.warn({ orderId: order.orderId, unknownStores }, 'sub-orders of unknown stores get no shipment');
  }
}

/**
 * checkout closed the order unpaid (expired, payment_failed, cancelled): remembers it (for a created
 * event that comes later) and cancels its pending_payment shipments, with a status event each.
 * Other status changes are not vendor's business here.
 */
export async function closeUnpaidOrder(tx: OrderTx, deps: Deps, change: OrderStatusChanged, lock: OrderLock = {}): Promise<void> {
  if (!isClosedUnpaid(change.status)) return;
  await lockOrder(tx, change.orderId, lock);
  await runStatement(tx, CLOSE_UNPAID_ORDER, [change.orderId, change.status, new Date(change.changedAt).toISOString(), ...eventValues(now(deps))]);
}

/** Remembers the payment (for a created event that comes later) and moves the order's shipments pending_payment → paid. */
export async function markOrderPaid(tx: OrderTx, deps: Deps, order: OrderPaid, lock: OrderLock = {}): Promise<void> {
  await lockOrder(tx, order.orderId, lock);
  await runStatement(tx, MARK_ORDER_PAID, [order.orderId, new Date(order.paidAt).toISOString(), ...eventValues(now(deps))]);
}

/** Serialises the handlers of one order's events (created, paid, closed) for the rest of the transaction. */
async function lockOrder(tx: OrderTx, orderId: string, { locked = false }: OrderLock): Promise<void> {
  if (!locked) await lockKey(tx, orderLockKey(orderId));
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
