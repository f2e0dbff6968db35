import { randomUUID } from 'node:crypto';
import type { EventData, SubOrderStatus, checkoutOrderCreated } from '@pasar/contracts';
import { createShipments } from '../src/shipments/events';
import type { TestVendor } from './vendor';

export type OrderCreated = EventData<typeof checkoutOrderCreated>;

/** checkout.order.created data: one sub-order per store id, two items each. */
export function orderCreated(storeIds: string[], createdAt = new Date()): OrderCreated {
  const orderId = randomUUID();
  return {
    orderId,
    shortId: `PSR-${orderId.slice(0, 6).toUpperCase()}`,
    customerId: randomUUID(),
    isB2b: false,
    familyId: null,
    purchaseRequestIds: [],
    buyerTin: null,
    total: '63.00',
    shippingAddress: {
      fullName: 'Siti Aminah',
      phone: '+60123456789',
      addressLine1: '12 Jalan Ampang',
      addressLine2: null,
      city: 'Kuala Lumpur',
      postcode: '50450',
      state: 'Wilayah Persekutuan',
    },
    subOrders: storeIds.map((storeId) => ({
      subOrderId: randomUUID(),
      storeId,
      shippingMethodId: null,
      subtotal: '55.00',
      shippingFee: '8.00',
      total: '63.00',
      items: [
        { orderItemId: randomUUID(), productId: randomUUID(), variantId: null, productName: 'Batik Scarf', variantName: null, quantity: 2, unitPrice: '20.00', weightKg: '0.250' },
        { orderItemId: randomUUID(), productId: randomUUID(), variantId: randomUUID(), productName: 'Songket', variantName: 'Red', quantity: 1, unitPrice: '15.00', weightKg: null },
      ],
    })),
    createdAt: createdAt.toISOString(),
  };
}

/** A shipment of the store in `status`, made by the order.created use case (then moved directly). */
export async function givenShipment(t: TestVendor, storeId: string, status: SubOrderStatus, createdAt?: Date) {
  const order = orderCreated([storeId], createdAt);
  await t.vendor.prisma.$transaction((tx) => createShipments(tx, t.vendor, order));
  const id = order.subOrders[0].subOrderId;
  if (status !== 'pending_payment') await t.vendor.prisma.shipment.update({ where: { id }, data: { status } });
  return { id, order };
}
