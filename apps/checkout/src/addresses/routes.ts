import { addressBody, uuidParam, type CustomerAddress as CustomerAddressJson } from '@pasar/contracts';
import { API_PREFIX, parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import type { CustomerAddress } from '../generated/prisma/client';
import { createAddress, deleteAddress, listAddresses, setDefaultAddress, updateAddress, type AddressDeps } from './addresses';

/** GET/POST /account/addresses, PUT/DELETE /account/addresses/{id}, PATCH /account/addresses/{id}/default. */
export function addressRoutes(router: Router, deps: AddressDeps): void {
  router.get('/account/addresses', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const addresses = await listAddresses(deps, userId);
    res.json(addresses.map(toCustomerAddressJson));
  });

  router.post('/account/addresses', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const id = await createAddress(deps, userId, parse(addressBody, req.body));
    res.status(201).location(`${API_PREFIX}/account/addresses/${id}`).end();
  });

  router.put('/account/addresses/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    await updateAddress(deps, userId, id, parse(addressBody, req.body));
    res.status(204).end();
  });

  router.delete('/account/addresses/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    await deleteAddress(deps, userId, id);
    res.status(204).end();
  });

  router.patch('/account/addresses/:id/default', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    await setDefaultAddress(deps, userId, id);
    res.status(204).end();
  });
}

/** The Customer address resource as the spec shows it (snake_case). */
export function toCustomerAddressJson(address: CustomerAddress): CustomerAddressJson {
  return {
    id: address.id,
    customer_id: address.customerId,
    label: address.label,
    full_name: address.fullName,
    phone: address.phone,
    address_line_1: address.addressLine1,
    address_line_2: address.addressLine2,
    city: address.city,
    postcode: address.postcode,
    state: address.state,
    is_default: address.isDefault,
    created_at: address.createdAt.toISOString(),
  };
}
