import { SHIPMENTS_PAGE_SIZE, type CancelShipmentBody, type ShipShipmentBody, type PostalAddress, type SubOrderStatus } from '@pasar/contracts';
import { ProblemError, badRequest, notFound } from '@pasar/service-kit';
import { now, type VendorDeps } from '../deps';
import type { Shipment, ShipmentItem } from '../generated/prisma/client';
import { pageCount, refusalOf, trackingUrlFor, type ShipmentAction } from './rules';
import { transitionShipment, type ShipmentChanges } from './transition';

type Deps = Pick<VendorDeps, 'prisma' | 'clock'>;

export type ShipmentWithItemCount = Shipment & { _count: { items: number } };

/** The store's shipments, newest first, optionally of one status; 20 a page. */
export async function listShipments(
  { prisma }: Pick<VendorDeps, 'prisma'>,
  storeId: string,
  query: { status?: SubOrderStatus; page: number },
): Promise<{ shipments: ShipmentWithItemCount[]; page: number; totalPages: number }> {
  const where = { storeId, ...(query.status ? { status: query.status } : {}) };
  const [total, shipments] = await prisma.$transaction([
    prisma.shipment.count({ where }),
    prisma.shipment.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (query.page - 1) * SHIPMENTS_PAGE_SIZE,
      take: SHIPMENTS_PAGE_SIZE,
      include: { _count: { select: { items: true } } },
    }),
  ]);
  return { shipments, page: query.page, totalPages: pageCount(total, SHIPMENTS_PAGE_SIZE) };
}

/** One of the store's shipments with its items; another store's is 404. */
export async function getShipment({ prisma }: Pick<VendorDeps, 'prisma'>, storeId: string, id: string): Promise<Shipment & { items: ShipmentItem[] }> {
  const shipment = await prisma.shipment.findFirst({ where: { id, storeId }, include: { items: { orderBy: { productName: 'asc' } } } });
  if (!shipment) throw notFound('shipment');
  return shipment;
}

/** Who the shipment goes to, as checkout's order carried it. */
export function recipientOf(shipment: Shipment): PostalAddress {
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
  const result = await deps.prisma.$transaction((tx) => transitionShipment(tx, { id, storeId }, action, changes(at), at));
  if (result.applied) return;
  if (result.status === null) throw notFound('shipment');
  const refusal = refusalOf(action, result.status);
  throw new ProblemError(refusal.status, refusal.code, refusal.detail);
}
