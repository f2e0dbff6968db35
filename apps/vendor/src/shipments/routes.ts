import {
  cancelShipmentBody,
  orderIdParam,
  type AdminShipment,
  shipShipmentBody,
  shipmentsQuery,
  uuidParam,
  type ShipmentDetail,
  type ShipmentSummary,
} from '@pasar/contracts';
import { parse, requireRole, type LeanRouter, type WithIdentity } from '@pasar/service-kit';
import type { Request, Router } from 'express';
import type { z } from 'zod';
import type { VendorDeps } from '../deps';
import type { Shipment } from '../generated/prisma/client';
import { requireOwnStore } from '../stores/access';
import {
  cancelShipment,
  deliverShipment,
  getOwnShipment,
  listOwnShipments,
  orderShipments,
  processShipment,
  recipientOf,
  shipShipment,
  type ShipmentRow,
  type ShipmentWithItems,
} from './shipments';

const BASE = '/vendor/shipments';

/** The caller's store and the shipment id of the path. */
async function target(deps: VendorDeps, req: Request): Promise<[string, string]> {
  const storeId = await requireOwnStore(deps.prisma, req);
  return [storeId, parse(uuidParam, req.params).id];
}

/**
 * For the two reads, which check the store ownership in their own statement (a vendor's polling is
 * hot): the signed-in vendor and the parsed input. Bad input from a vendor without a store still
 * answers 403 no_store before the 400, as on every vendor path.
 */
async function ownerAndInput<S extends z.ZodType>(deps: VendorDeps, req: WithIdentity, schema: S, input: unknown): Promise<[string, z.infer<S>]> {
  const { userId } = requireRole(req, 'vendor');
  if (!schema.safeParse(input).success) await requireOwnStore(deps.prisma, req);
  return [userId, parse(schema, input)];
}

/**
 * GET /vendor/shipments/{id} on the lean path: what a vendor's screen polls while orders come in
 * (the same checks and answers as the express routes, at a fraction of the cost).
 */
export function leanShipmentRoutes(router: LeanRouter, deps: VendorDeps): void {
  router.get(`${BASE}/:id`, async (req) => {
    const [ownerUserId, { id }] = await ownerAndInput(deps, req, uuidParam, req.params);
    return { status: 200, body: toShipmentDetail(await getOwnShipment(deps, ownerUserId, id)) };
  });
}

/** GET /vendor/shipments and the vendor's moves: process, ship, deliver, cancel (one shipment: leanShipmentRoutes). */
export function shipmentRoutes(router: Router, deps: VendorDeps): void {
  router.get(BASE, async (req, res) => {
    const [ownerUserId, query] = await ownerAndInput(deps, req, shipmentsQuery, req.query);
    const page = await listOwnShipments(deps, ownerUserId, query);
    res.json({ ...page, shipments: page.shipments.map((s) => toShipmentSummary(s, s.itemCount)) });
  });

  router.post(`${BASE}/:id/process`, async (req, res) => {
    await processShipment(deps, ...(await target(deps, req)));
    res.status(204).end();
  });

  router.post(`${BASE}/:id/ship`, async (req, res) => {
    const [storeId, id] = await target(deps, req);
    await shipShipment(deps, storeId, id, parse(shipShipmentBody, req.body));
    res.status(204).end();
  });

  router.post(`${BASE}/:id/deliver`, async (req, res) => {
    await deliverShipment(deps, ...(await target(deps, req)));
    res.status(204).end();
  });

  router.post(`${BASE}/:id/cancel`, async (req, res) => {
    const [storeId, id] = await target(deps, req);
    await cancelShipment(deps, storeId, id, parse(cancelShipmentBody, req.body ?? {}));
    res.status(204).end();
  });

  // operators (console "Orders"): an order's shipments across its stores
  router.get('/admin/vendor/orders/:orderId/shipments', async (req, res) => {
    requireRole(req, 'admin');
    res.json((await orderShipments(deps, parse(orderIdParam, req.params).orderId)).map(toAdminShipment));
  });
}

export function toAdminShipment(shipment: Shipment & { store: { name: string } }): AdminShipment {
  return {
    id: shipment.id,
    storeId: shipment.storeId,
    storeName: shipment.store.name,
    status: shipment.status,
    courier: shipment.courier,
    trackingId: shipment.trackingId,
    trackingUrl: shipment.trackingUrl,
    cancelReason: shipment.cancelReason,
    createdAt: shipment.createdAt.toISOString(),
    paidAt: iso(shipment.paidAt),
    shippedAt: iso(shipment.shippedAt),
    deliveredAt: iso(shipment.deliveredAt),
    cancelledAt: iso(shipment.cancelledAt),
  };
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toShipmentSummary(shipment: ShipmentRow, itemCount: number): ShipmentSummary {
  return {
    id: shipment.id,
    orderId: shipment.orderId,
    shortId: shipment.shortId,
    status: shipment.status,
    total: shipment.total,
    itemCount,
    recipientName: shipment.recipientName,
    courier: shipment.courier,
    trackingId: shipment.trackingId,
    trackingUrl: shipment.trackingUrl,
    createdAt: shipment.createdAt.toISOString(),
    paidAt: iso(shipment.paidAt),
    shippedAt: iso(shipment.shippedAt),
    deliveredAt: iso(shipment.deliveredAt),
    cancelledAt: iso(shipment.cancelledAt),
  };
}

export function toShipmentDetail(shipment: ShipmentWithItems): ShipmentDetail {
  return {
    ...toShipmentSummary(shipment, shipment.items.length),
    storeId: shipment.storeId,
    shippingMethodId: shipment.shippingMethodId,
    subtotal: shipment.subtotal,
    shippingFee: shipment.shippingFee,
    cancelReason: shipment.cancelReason,
    updatedAt: shipment.updatedAt.toISOString(),
    recipient: recipientOf(shipment),
    items: shipment.items.map((item) => ({
      id: item.id,
      productId: item.productId,
      variantId: item.variantId,
      productName: item.productName,
      variantName: item.variantName,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      weightKg: item.weightKg,
    })),
  };
}
