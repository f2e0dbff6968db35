import {
  cancelShipmentBody,
  shipShipmentBody,
  shipmentsQuery,
  uuidParam,
  type ShipmentDetail,
  type ShipmentSummary,
} from '@pasar/contracts';
import { parse } from '@pasar/service-kit';
import type { Request, Router } from 'express';
import type { VendorDeps } from '../deps';
import type { Shipment, ShipmentItem } from '../generated/prisma/client';
import { requireOwnStore } from '../stores/access';
import {
  cancelShipment,
  deliverShipment,
  getShipment,
  listShipments,
  processShipment,
  recipientOf,
  shipShipment,
} from './shipments';

const BASE = '/vendor/shipments';

/** The caller's store and the shipment id of the path. */
async function target(deps: VendorDeps, req: Request): Promise<[string, string]> {
  const storeId = await requireOwnStore(deps.prisma, req);
  return [storeId, parse(uuidParam, req.params).id];
}

/** GET /vendor/shipments[/{id}] and the vendor's moves: process, ship, deliver, cancel. */
export function shipmentRoutes(router: Router, deps: VendorDeps): void {
  router.get(BASE, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    const page = await listShipments(deps, storeId, parse(shipmentsQuery, req.query));
    res.json({ ...page, shipments: page.shipments.map((s) => toShipmentSummary(s, s._count.items)) });
  });

  router.get(`${BASE}/:id`, async (req, res) => {
    res.json(toShipmentDetail(await getShipment(deps, ...(await target(deps, req)))));
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
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toShipmentSummary(shipment: Shipment, itemCount: number): ShipmentSummary {
  return {
    id: shipment.id,
    orderId: shipment.orderId,
    shortId: shipment.shortId,
    status: shipment.status,
    total: shipment.total.toFixed(2),
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

export function toShipmentDetail(shipment: Shipment & { items: ShipmentItem[] }): ShipmentDetail {
  return {
    ...toShipmentSummary(shipment, shipment.items.length),
    storeId: shipment.storeId,
    shippingMethodId: shipment.shippingMethodId,
    subtotal: shipment.subtotal.toFixed(2),
    shippingFee: shipment.shippingFee.toFixed(2),
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
      unitPrice: item.unitPrice.toFixed(2),
      weightKg: item.weightKg?.toFixed(3) ?? null,
    })),
  };
}
