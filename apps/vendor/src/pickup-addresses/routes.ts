import { listQuery, pickupAddressBody, uuidParam, type VendorPickupAddress } from '@pasar/contracts';
import { API_PREFIX, parse } from '@pasar/service-kit';
import type { Router } from 'express';
import type { VendorDeps } from '../deps';
import type { PickupAddress } from '../generated/prisma/client';
import { requireOwnStore } from '../stores/access';
import { createPickupAddress, deletePickupAddress, listPickupAddresses, updatePickupAddress } from './pickup-addresses';

const BASE = '/vendor/pickup-addresses';

/** GET/POST /vendor/pickup-addresses, PUT/DELETE /vendor/pickup-addresses/{id}; the store is the caller's own. */
export function pickupAddressRoutes(router: Router, deps: VendorDeps): void {
  router.get(BASE, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    res.json((await listPickupAddresses(deps, storeId, parse(listQuery, req.query))).map(toVendorPickupAddress));
  });

  router.post(BASE, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    const id = await createPickupAddress(deps, storeId, parse(pickupAddressBody, req.body));
    res.status(201).location(`${API_PREFIX}${BASE}/${id}`).end();
  });

  router.put(`${BASE}/:id`, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    const { id } = parse(uuidParam, req.params);
    await updatePickupAddress(deps, storeId, id, parse(pickupAddressBody, req.body));
    res.status(204).end();
  });

  router.delete(`${BASE}/:id`, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    await deletePickupAddress(deps, storeId, parse(uuidParam, req.params).id);
    res.status(204).end();
  });
}

/** The Vendor pickup address resource as the spec shows it (snake_case). */
export function toVendorPickupAddress(address: PickupAddress): VendorPickupAddress {
  return {
    id: address.id,
    store_id: address.storeId,
    label: address.label,
    address_line_1: address.addressLine1,
    postcode: address.postcode,
    state: address.state,
    is_default: address.isDefault,
    created_at: address.createdAt.toISOString(),
  };
}
