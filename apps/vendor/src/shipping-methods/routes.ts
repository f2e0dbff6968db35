import { activateShippingMethodBody, listQuery, shippingMethodBody, uuidParam, type VendorShippingMethod } from '@pasar/contracts';
import { API_PREFIX, parse } from '@pasar/service-kit';
import type { Router } from 'express';
import type { VendorDeps } from '../deps';
import type { ShippingMethod } from '../generated/prisma/client';
import { requireOwnStore } from '../stores/access';
import {
  activateShippingMethod,
  createShippingMethod,
  deleteShippingMethod,
  listShippingMethods,
  toggleShippingMethod,
  updateShippingMethod,
} from './shipping-methods';

const BASE = '/vendor/shipping-methods';

/** The six spec endpoints of /vendor/shipping-methods; the store is the caller's own. */
export function shippingMethodRoutes(router: Router, deps: VendorDeps): void {
  router.get(BASE, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    res.json((await listShippingMethods(deps, storeId, parse(listQuery, req.query))).map(toVendorShippingMethod));
  });

  router.post(BASE, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    const id = await createShippingMethod(deps, storeId, parse(shippingMethodBody, req.body));
    res.status(201).location(`${API_PREFIX}${BASE}/${id}`).end();
  });

  router.put(`${BASE}/:id`, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    const { id } = parse(uuidParam, req.params);
    await updateShippingMethod(deps, storeId, id, parse(shippingMethodBody, req.body));
    res.status(204).end();
  });

  router.delete(`${BASE}/:id`, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    await deleteShippingMethod(deps, storeId, parse(uuidParam, req.params).id);
    res.status(204).end();
  });

  router.patch(`${BASE}/:id/toggle-active`, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    res.json(await toggleShippingMethod(deps, storeId, parse(uuidParam, req.params).id));
  });

  router.post(`${BASE}/:id/activate`, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    const { id } = parse(uuidParam, req.params);
    res.json(await activateShippingMethod(deps, storeId, id, parse(activateShippingMethodBody, req.body).active));
  });
}

/** The Vendor shipping method resource as the spec shows it (snake_case). */
export function toVendorShippingMethod(method: ShippingMethod): VendorShippingMethod {
  return {
    id: method.id,
    store_id: method.storeId,
    name: method.name,
    provider: method.provider,
    type: method.type,
    rate_config: method.rateConfig as Record<string, unknown>,
    estimated_days_min: method.estimatedDaysMin,
    estimated_days_max: method.estimatedDaysMax,
    is_active: method.isActive,
    created_at: method.createdAt.toISOString(),
  };
}
