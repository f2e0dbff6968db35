import { RpcRefusal, serveRpc, type Bus } from '@pasar/bus';
import { vendorBookingContext, type RpcResponse } from '@pasar/contracts';
import type { VendorDeps } from '../deps';
import type { PrismaClient } from '../generated/prisma/client';
import { PICKUP_ADDRESS_ORDER } from '../pickup-addresses/pickup-addresses';
import { recipientOf } from './shipments';

/** Answers rpc.vendor.booking_context (admin's carrier booking). */
export function bookingContextRpc({ bus, prisma }: { bus: Bus; prisma: PrismaClient }) {
  return serveRpc(bus, vendorBookingContext, ({ shipmentId }) => bookingContext({ prisma }, shipmentId));
}

/**
 * The shipment, its items, its method's provider (null when the method is gone) and the store's
 * pickup address: the default, else the oldest (null when the store has none). Unknown: `not_found`.
 */
export async function bookingContext({ prisma }: Pick<VendorDeps, 'prisma'>, shipmentId: string): Promise<RpcResponse<typeof vendorBookingContext>> {
  const shipment = await prisma.shipment.findUnique({ where: { id: shipmentId }, include: { items: { orderBy: { productName: 'asc' } } } });
  if (!shipment) throw new RpcRefusal('not_found', 'no such shipment');
  const { storeId, shippingMethodId } = shipment;
  const [method, pickup] = await Promise.all([
    shippingMethodId ? prisma.shippingMethod.findFirst({ where: { id: shippingMethodId, storeId }, select: { provider: true } }) : null,
    prisma.pickupAddress.findFirst({ where: { storeId }, orderBy: [...PICKUP_ADDRESS_ORDER] }),
  ]);
  return {
    shipment: { id: shipment.id, orderId: shipment.orderId, storeId, status: shipment.status, shippingMethodId },
    provider: method?.provider ?? null,
    recipient: recipientOf(shipment),
    items: shipment.items.map((item) => ({ productName: item.productName, quantity: item.quantity, weightKg: item.weightKg?.toFixed(3) ?? null })),
    pickupAddress: pickup ? { id: pickup.id, label: pickup.label, addressLine1: pickup.addressLine1, postcode: pickup.postcode, state: pickup.state } : null,
    quote: { amount: shipment.shippingFee.toFixed(2), currency: 'MYR' },
  };
}
