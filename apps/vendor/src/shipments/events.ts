import { consumeWithInbox, type InboxClaim, type RunningConsumer, type SqlTx } from '@pasar/bus';
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
      // the batch's whole transaction in one statement (inbox claim, locks, shipments)
      claimAndHandle: (events, claim, pool) => createShipmentsClaiming(pool, ctx, events, claim),
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
 * (the vendor migration's enqueue_shipment_status_events: one event per shipment, in id order).
 * Placeholders: changed at (also the row's updated_at, so typed timestamptz), occurred at (ISO
 * text), type, version, source. The statement must read `events` for it to run.
 */
const statusEventsCte = (p: { changedAt: string; occurredAt: string; type: string; version: string; source: string }) =>
  `events AS (
      SELECT enqueue_shipment_status_events(jsonb_agg(to_jsonb(m)), 'pending_payment', ${p.changedAt}::timestamptz, ${p.occurredAt}::text,
        ${p.type}::text, ${p.version}::int, ${p.source}::text) AS enqueued
      FROM moved m
    )`;
/** The values statusEventsCte's placeholders take after the statement's own, in that order. */
const eventValues = (at: Date) => [at.toISOString(), new Date().toISOString(), vendorShipmentStatusChanged.type, vendorShipmentStatusChanged.version, EVENT_SOURCE.source];

/**
 * The shipments of the known stores with their items, for a JSON array of order.created data,
 * with their status events: the vendor migration's create_shipments (see there). $1 the orders,
 * then eventValues.
 */
const CREATE_SHIPMENTS = {
  name: 'vendor-create-shipments',
  text: 'SELECT create_shipments($1::jsonb, $2::timestamptz, $3::text, $4::text, $5::int, $6::text) AS "knownStoreIds"',
};

/** The created consumer's transaction in one statement: shipments_order_created (inbox_claim, then create_shipments). */
const SHIPMENTS_ORDER_CREATED = {
  name: 'vendor-shipments-order-created',
  text: `SELECT shipments_order_created($1::text, $2::uuid[], $3::text[], $4::jsonb, $5::timestamptz, $6::text, $7::text, $8::int, $9::text) AS "knownStoreIds"`,
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
    ), ${statusEventsCte({ changedAt: '$3', occurredAt: '$4', type: '$5', version: '$6', source: '$7' })}
    SELECT (SELECT count(*)::int FROM moved) AS moved, enqueued FROM events`,
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
    ), ${statusEventsCte({ changedAt: '$4', occurredAt: '$5', type: '$6', version: '$7', source: '$8' })}
    SELECT (SELECT count(*)::int FROM moved) AS moved, enqueued FROM events`,
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
  const [written] = await runStatement<{ knownStoreIds: string[] }>(tx, CREATE_SHIPMENTS, [JSON.stringify(orders), ...eventValues(now(deps))]);
  warnOfUnknownStores(deps, orders, written.knownStoreIds);
}

/**
 * The created consumer's batch (claimAndHandle): its inbox claim, the orders' locks and
 * createShipmentsOf of the new events in ONE statement, outside any transaction (one round trip,
 * one commit).
 */
export async function createShipmentsClaiming(pool: SqlTx, deps: Deps, events: readonly { id: string; data: OrderCreated }[], claim: InboxClaim): Promise<void> {
  const [written] = await runStatement<{ knownStoreIds: string[] }>(pool, SHIPMENTS_ORDER_CREATED, [
    claim.consumer,
    claim.eventIds,
    claim.lockKeys,
    JSON.stringify(events),
    ...eventValues(now(deps)),
  ]);
  warnOfUnknownStores(deps, events.map((e) => e.data), written.knownStoreIds);
}

/** Sub-orders of stores that do not exist here get no shipment: said once per order. */
function warnOfUnknownStores(deps: Deps, orders: readonly OrderCreated[], knownStoreIds: readonly string[]): void {
  const known = new Set(knownStoreIds);
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
