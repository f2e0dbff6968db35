import { MAX_ADDRESSES_PER_CUSTOMER, type AddressBody } from '@pasar/contracts';
import { conflict, notFound } from '@pasar/service-kit';
import type { CustomerAddress, Prisma, PrismaClient } from '../generated/prisma/client';
import { hasRoomForAnother, isDefaultAfterUpdate, isDefaultOnCreate, listingOrder, successorOfDeletedDefault } from './rules';

/** What the address use cases need. */
export interface AddressDeps {
  prisma: PrismaClient;
}

type Tx = Prisma.TransactionClient;

/** The caller's addresses, the default first, then newest first. */
export async function listAddresses({ prisma }: AddressDeps, customerId: string): Promise<CustomerAddress[]> {
  const rows = await prisma.customerAddress.findMany({ where: { customerId } });
  return rows.sort(listingOrder);
}

/** Adds an address and answers its id; the first one, or one sent with is_default=true, becomes the default. */
export async function createAddress({ prisma }: AddressDeps, customerId: string, body: AddressBody): Promise<string> {
  return withCustomerAddresses(prisma, customerId, async (tx) => {
    const existing = await tx.customerAddress.count({ where: { customerId } });
    if (!hasRoomForAnother(existing)) {
      throw conflict('address_limit', `a customer keeps at most ${MAX_ADDRESSES_PER_CUSTOMER} addresses`);
    }
    const isDefault = isDefaultOnCreate(existing, body.is_default);
    if (isDefault) await clearDefault(tx, customerId);
    const created = await tx.customerAddress.create({
      data: { customerId, ...addressFields(body), isDefault },
      select: { id: true },
    });
    return created.id;
  });
}

/** Replaces an address's fields; is_default=true makes it the default. */
export async function updateAddress({ prisma }: AddressDeps, customerId: string, addressId: string, body: AddressBody): Promise<void> {
  await withCustomerAddresses(prisma, customerId, async (tx) => {
    const current = await findOwnAddress(tx, customerId, addressId);
    const isDefault = isDefaultAfterUpdate(current.isDefault, body.is_default);
    if (isDefault && !current.isDefault) await clearDefault(tx, customerId);
    await tx.customerAddress.update({ where: { id: addressId }, data: { ...addressFields(body), isDefault } });
  });
}

/** Deletes an address; deleting the default promotes the newest remaining one. */
export async function deleteAddress({ prisma }: AddressDeps, customerId: string, addressId: string): Promise<void> {
  await withCustomerAddresses(prisma, customerId, async (tx) => {
    const current = await findOwnAddress(tx, customerId, addressId);
    await tx.customerAddress.delete({ where: { id: addressId } });
    if (!current.isDefault) return;
    const remaining = await tx.customerAddress.findMany({
      where: { customerId },
      select: { id: true, isDefault: true, createdAt: true },
    });
    const successor = successorOfDeletedDefault(remaining);
    if (successor) await tx.customerAddress.update({ where: { id: successor.id }, data: { isDefault: true } });
  });
}

/** Makes the address the caller's one default. */
export async function setDefaultAddress({ prisma }: AddressDeps, customerId: string, addressId: string): Promise<void> {
  await withCustomerAddresses(prisma, customerId, async (tx) => {
    const current = await findOwnAddress(tx, customerId, addressId);
    if (current.isDefault) return;
    await clearDefault(tx, customerId);
    await tx.customerAddress.update({ where: { id: addressId }, data: { isDefault: true } });
  });
}

/**
 * Runs `work` in one transaction that holds the customer's address lock (a transaction-scoped
 * advisory lock keyed by the customer), so the writes to one customer's addresses take turns:
 * the count limit and the single default hold under any concurrency. The partial unique index
 * customer_address_one_default enforces the single default in the database as well.
 */
function withCustomerAddresses<R>(prisma: PrismaClient, customerId: string, work: (tx: Tx) => Promise<R>): Promise<R> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`customer_address:${customerId}`}, 0))`;
    return work(tx);
  });
}

/** The address if it is the caller's; another customer's address is as unknown as a missing one. */
async function findOwnAddress(tx: Tx, customerId: string, addressId: string): Promise<CustomerAddress> {
  const address = await tx.customerAddress.findFirst({ where: { id: addressId, customerId } });
  if (!address) throw notFound('address');
  return address;
}

async function clearDefault(tx: Tx, customerId: string): Promise<void> {
  await tx.customerAddress.updateMany({ where: { customerId, isDefault: true }, data: { isDefault: false } });
}

function addressFields(body: AddressBody) {
  return {
    label: body.label,
    fullName: body.full_name,
    phone: body.phone,
    addressLine1: body.address_line_1,
    addressLine2: body.address_line_2 || null,
    city: body.city,
    postcode: body.postcode,
    state: body.state,
  };
}
