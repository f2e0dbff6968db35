import { inTransactionHandingOver } from '@pasar/bus';
import { SHIPMENTS_PAGE_SIZE, type CancelShipmentBody, type ShipShipmentBody, type PostalAddress, type SubOrderStatus } from '@pasar/contracts';
import { sqlPoolOf } from '@pasar/db';
import { ProblemError, badRequest, notFound } from '@pasar/service-kit';
import { now, type VendorDeps } from '../deps';
import { noStore } from '../stores/access';
import type { Shipment } from '../generated/prisma/client';
import { pageCount, refusalOf, trackingUrlFor, type ShipmentAction } from './rules';
import { transitionShipment, type ShipmentChanges } from './transition';

type Deps = Pick<VendorDeps, 'prisma' | 'clock' | 'relay'>;

/**
 * A shipment as the vendor's reads answer it, straight from plain SQL: money as the database
 * prints its numeric(12,2) / numeric(10,3) (two / three decimals, the API's strings).
 */
export interface ShipmentRow {
  id: string;
  orderId: string;
  shortId: string;
  storeId: string;
  status: SubOrderStatus;
  shippingMethodId: string | null;
  subtotal: string;
  shippingFee: string;
  total: string;
  recipientName: string;
  recipientPhone: string;
  addressLine1: string;
  addressLine2: string | null;
  city: string;
  postcode: string;
  state: string;
  courier: string | null;
  trackingId: string | null;
  trackingUrl: string | null;
  cancelReason: string | null;
  createdAt: Date;
  paidAt: Date | null;
  shippedAt: Date | null;
  deliveredAt: Date | null;
  cancelledAt: Date | null;
  updatedAt: Date;
}

export interface ShipmentItemRow {
  id: string;
  productId: string;
  variantId: string | null;
  productName: string;
  variantName: string | null;
  quantity: number;
  unitPrice: string;
  weightKg: string | null;
}

export type ShipmentWithItemCount = ShipmentRow & { itemCount: number };
export type ShipmentWithItems = ShipmentRow & { items: ShipmentItemRow[] };

/** The columns of ShipmentRow, of shipment `s`. */
const SHIPMENT_COLUMNS = `s.id, s.order_id AS "orderId", s.short_id AS "shortId", s.store_id AS "storeId", s.status::text AS status,
  s.shipping_method_id AS "shippingMethodId", s.subtotal::text AS subtotal, s.shipping_fee::text AS "shippingFee", s.total::text AS total,
  s.recipient_name AS "recipientName", s.recipient_phone AS "recipientPhone", s.address_line_1 AS "addressLine1",
  s.address_line_2 AS "addressLine2", s.city, s.postcode, s.state, s.courier, s.tracking_id AS "trackingId",
  s.tracking_url AS "trackingUrl", s.cancel_reason AS "cancelReason", s.created_at AS "createdAt", s.paid_at AS "paidAt",
  s.shipped_at AS "shippedAt", s.delivered_at AS "deliveredAt", s.cancelled_at AS "cancelledAt", s.updated_at AS "updatedAt"`;

/**
 * One page of the store of owner $1: no row when the vendor has no store; else one row per
 * shipment, or one row with id null for an empty page. Every row carries the total count.
 * Ownership, count and page are one statement (one snapshot, one round trip).
 */
const listSql = (byStatus: boolean) => `
  SELECT own.id AS "ownStoreId", total.n AS "totalCount", page.*
  FROM store own
  CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM shipment s WHERE s.store_id = own.id${byStatus ? ' AND s.status = $4::shipment_status' : ''}) total
  LEFT JOIN LATERAL (
    SELECT ${SHIPMENT_COLUMNS}, (SELECT count(*)::int FROM shipment_item i WHERE i.shipment_id = s.id) AS "itemCount"
    FROM shipment s WHERE s.store_id = own.id${byStatus ? ' AND s.status = $4::shipment_status' : ''}
    ORDER BY s.created_at DESC, s.id DESC LIMIT $2 OFFSET $3
  ) page ON true
  WHERE own.owner_user_id = $1
  ORDER BY page."createdAt" DESC, page.id DESC`;
const LIST_ALL = { name: 'vendor-shipments-page', text: listSql(false) };
const LIST_BY_STATUS = { name: 'vendor-shipments-page-by-status', text: listSql(true) };

/**
 * The shipment $2 of the store of owner $1 with its items (by product name): no row when the
 * vendor has no store, a row with id null when the shipment is missing or another store's.
 */
const GET_OWN_SHIPMENT = {
  name: 'vendor-own-shipment',
  text: `
  SELECT own.id AS "ownStoreId", ${SHIPMENT_COLUMNS},
    (SELECT COALESCE(json_agg(json_build_object('id', i.id, 'productId', i.product_id, 'variantId', i.variant_id,
        'productName', i.product_name, 'variantName', i.variant_name, 'quantity', i.quantity,
        'unitPrice', i.unit_price::text, 'weightKg', i.weight_kg::text) ORDER BY i.product_name), '[]'::json)
     FROM shipment_item i WHERE i.shipment_id = s.id) AS items
  FROM store own
  LEFT JOIN shipment s ON s.id = $2 AND s.store_id = own.id
  WHERE own.owner_user_id = $1`,
};

/** The shipments of the store of `ownerUserId`, newest first, optionally of one status; 20 a page. */
export async function listOwnShipments(
  { prisma }: Pick<VendorDeps, 'prisma'>,
  ownerUserId: string,
  query: { status?: SubOrderStatus; page: number },
): Promise<{ shipments: ShipmentWithItemCount[]; page: number; totalPages: number }> {
  const statement = query.status ? LIST_BY_STATUS : LIST_ALL;
  const values: unknown[] = [ownerUserId, SHIPMENTS_PAGE_SIZE, (query.page - 1) * SHIPMENTS_PAGE_SIZE];
  if (query.status) values.push(query.status);
  const { rows } = await sqlPoolOf(prisma).query<ShipmentWithItemCount & { ownStoreId: string; totalCount: number }>({ ...statement, values });
  if (rows.length === 0) throw noStore();
  const shipments = rows.filter((row) => row.id !== null).map(({ ownStoreId: _store, totalCount: _total, ...shipment }) => shipment);
  return { shipments, page: query.page, totalPages: pageCount(rows[0].totalCount, SHIPMENTS_PAGE_SIZE) };
}

/** One shipment of the store of `ownerUserId` with its items; another store's, or none, is 404. */
export async function getOwnShipment({ prisma }: Pick<VendorDeps, 'prisma'>, ownerUserId: string, id: string): Promise<ShipmentWithItems> {
  const { rows } = await sqlPoolOf(prisma).query<ShipmentWithItems & { ownStoreId: string }>({ ...GET_OWN_SHIPMENT, values: [ownerUserId, id] });
  if (rows.length === 0) throw noStore();
  const { ownStoreId: _store, ...shipment } = rows[0];
  if (shipment.id === null) throw notFound('shipment');
  return shipment;
}

/** Who the shipment goes to, as checkout's order carried it. */
export function recipientOf(
  shipment: Pick<Shipment, 'recipientName' | 'recipientPhone' | 'addressLine1' | 'addressLine2' | 'city' | 'postcode' | 'state'>,
): PostalAddress {
  return {
    fullName: shipment.recipientName,
    phone: shipment.recipientPhone,
    addressLine1: shipment.addressLine1,
    addressLine2: shipment.addressLine2,
    city: shipment.city,
    postcode: shipment.postcode,
    state: shipment.state,
  };
}

/** paid → processing. */
export function processShipment(deps: Deps, storeId: string, id: string): Promise<void> {
  return vendorAction(deps, storeId, id, 'process', () => ({}));
}

/**
 * paid, processing, awaiting_pickup or shipped → shipped, with tracking (a re-ship corrects it).
 * The URL is built from the courier's template when absent; `other` must bring its own (400).
 * No e-mail and no e-invoice work here (spec): checkout and the notifier act on the event.
 */
export function shipShipment(deps: Deps & Pick<VendorDeps, 'config'>, storeId: string, id: string, body: ShipShipmentBody): Promise<void> {
  const templates = { carrier_a: deps.config.CARRIER_A_TRACKING_URL, carrier_b: deps.config.CARRIER_B_TRACKING_URL };
  const trackingUrl = trackingUrlFor(body.courier, body.trackingId, body.trackingUrl, templates);
  if (!trackingUrl) throw badRequest('tracking_url_required', 'courier other needs a trackingUrl');
  return vendorAction(deps, storeId, id, 'ship', (at) => ({ courier: body.courier, trackingId: body.trackingId, trackingUrl, shippedAt: at }));
}

/** Anything but delivered or cancelled → delivered (409 otherwise). */
export function deliverShipment(deps: Deps, storeId: string, id: string): Promise<void> {
  return vendorAction(deps, storeId, id, 'deliver', (at) => ({ deliveredAt: at }));
}

/** paid or processing → cancelled (400 invalid_status otherwise); checkout releases stock and refunds on the event. */
export function cancelShipment(deps: Deps, storeId: string, id: string, body: CancelShipmentBody): Promise<void> {
  return vendorAction(deps, storeId, id, 'cancel', (at) => ({ cancelledAt: at, cancelReason: body.reason || null }));
}

/** One vendor action in one transaction: 404 when not the store's, the action's refusal when its status forbids it. */
async function vendorAction(deps: Deps, storeId: string, id: string, action: ShipmentAction, changes: (at: Date) => ShipmentChanges): Promise<void> {
  const at = now(deps);
  const result = await inTransactionHandingOver(deps.prisma, deps.relay, (tx) => transitionShipment(tx, { id, storeId }, action, changes(at), at));
  if (result.applied) return;
  if (result.status === null) throw notFound('shipment');
  const refusal = refusalOf(action, result.status);
  throw new ProblemError(refusal.status, refusal.code, refusal.detail);
}

/** An order's shipments (one per sub-order) with their store's name, oldest first; none known: 404. */
export async function orderShipments({ prisma }: Pick<VendorDeps, 'prisma'>, orderId: string): Promise<(Shipment & { store: { name: string } })[]> {
  const shipments = await prisma.shipment.findMany({
    where: { orderId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    include: { store: { select: { name: true } } },
  });
  if (shipments.length === 0) throw notFound('shipments of the order');
  return shipments;
}
