import { z } from 'zod';
import { orderStatusSchema, subOrderStatusSchema } from '../commerce';
import type { ApiRoute } from './api-route';
import { money, uuidParam } from './common';
import { shipmentProgress } from './webhooks';

// ---------------------------------------------------------------- admin: orders (checkout)

/** A page of at most `limit` rows after `cursor` (the `nextCursor` of the previous page). */
const cursorPaging = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional().meta({ description: 'nextCursor of the previous page' }),
};

export const adminOrdersQuery = z.object({
  q: z.string().trim().min(1).max(254).meta({ description: 'A short id (PSR-XXXXXXXX), an order id, or the customer e-mail' }),
  ...cursorPaging,
});
export type AdminOrdersQuery = z.infer<typeof adminOrdersQuery>;

export const adminOrderSummary = z
  .object({
    id: z.uuid(),
    shortId: z.string(),
    status: orderStatusSchema,
    customerId: z.uuid(),
    customerEmail: z.string().nullable().meta({ description: "From checkout's user replica (null until it arrives)" }),
    customerName: z.string().nullable(),
    total: money,
    subOrderCount: z.number().int(),
    isB2b: z.boolean(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'AdminOrderSummary' });
export type AdminOrderSummary = z.infer<typeof adminOrderSummary>;

export const adminOrderPage = z
  .object({ orders: z.array(adminOrderSummary), nextCursor: z.string().nullable() })
  .meta({ id: 'AdminOrderPage' });
export type AdminOrderPage = z.infer<typeof adminOrderPage>;

export const adminSubOrder = z.object({
  id: z.uuid(),
  storeId: z.uuid(),
  storeName: z.string().nullable(),
  status: subOrderStatusSchema,
  subtotal: money,
  shippingFee: money,
  total: money,
  courier: z.string().nullable(),
  trackingId: z.string().nullable(),
  items: z.array(z.object({ productName: z.string(), variantName: z.string().nullable(), quantity: z.number().int(), lineTotal: money })),
});

export const adminPayment = z.object({
  status: z.enum(['pending', 'paid', 'failed', 'expired']),
  amount: money,
  refundedAmount: money,
  currency: z.string(),
  attempts: z.number().int().meta({ description: 'Payment initiations' }),
  transactionId: z.string().nullable(),
  paidAt: z.iso.datetime().nullable(),
});

/** A payment notification as received: never its payload (it carries the skey). */
export const adminPaymentNotification = z.object({
  transactionId: z.string(),
  status: z.string(),
  verified: z.boolean(),
  receivedAt: z.iso.datetime(),
});

export const ORDER_TIMELINE_KINDS = [
  'order_placed',
  'payment_notification',
  'order_paid',
  'sub_order_shipped',
  'sub_order_delivered',
  'sub_order_cancelled',
  'return_requested',
  'return_reviewed',
  'return_received',
  'return_refunded',
  'order_expired',
] as const;

export const orderTimelineEntry = z.object({
  at: z.iso.datetime(),
  kind: z.enum(ORDER_TIMELINE_KINDS),
  subject: z.string().nullable().meta({ description: 'The sub-order, return or transaction it is about' }),
  detail: z.string(),
});
export type OrderTimelineEntry = z.infer<typeof orderTimelineEntry>;

export const adminOrderDetail = z
  .object({
    order: adminOrderSummary.extend({
      subtotal: money,
      discountTotal: money,
      shippingTotal: money,
      buyerTin: z.string().nullable(),
      familyId: z.uuid().nullable(),
      paidAt: z.iso.datetime().nullable(),
      expiresAt: z.iso.datetime(),
    }),
    subOrders: z.array(adminSubOrder),
    payment: adminPayment.nullable(),
    paymentNotifications: z.array(adminPaymentNotification),
    timeline: z.array(orderTimelineEntry).meta({ description: 'Oldest first, from the rows checkout keeps' }),
  })
  .meta({ id: 'AdminOrderDetail' });
export type AdminOrderDetail = z.infer<typeof adminOrderDetail>;

// ---------------------------------------------------------------- admin: shipments and webhooks (vendor)

export const orderIdParam = z.object({ orderId: z.uuid() });

export const adminShipment = z
  .object({
    id: z.uuid(),
    storeId: z.uuid(),
    storeName: z.string(),
    status: subOrderStatusSchema,
    ...shipmentProgress,
  })
  .meta({ id: 'AdminShipment' });
export type AdminShipment = z.infer<typeof adminShipment>;

export const ADMIN_WEBHOOK_DELIVERY_STATUSES = ['failing', 'failed'] as const;

export const adminWebhookDeliveriesQuery = z.object({
  status: z
    .enum(ADMIN_WEBHOOK_DELIVERY_STATUSES)
    .default('failing')
    .meta({ description: 'failing: still being retried after a failed attempt; failed: gave up (or the endpoint was disabled)' }),
  ...cursorPaging,
});
export type AdminWebhookDeliveriesQuery = z.infer<typeof adminWebhookDeliveriesQuery>;

export const adminWebhookDelivery = z
  .object({
    id: z.uuid(),
    storeId: z.uuid(),
    storeName: z.string(),
    endpointId: z.uuid(),
    endpointHost: z.string().meta({ description: "The endpoint URL's host only (never its path, query or secret)" }),
    endpointEnabled: z.boolean(),
    eventType: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    lastError: z.string().nullable().meta({ description: 'The last attempt: its error, or its HTTP status' }),
    lastAttemptAt: z.iso.datetime().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'AdminWebhookDelivery' });
export type AdminWebhookDelivery = z.infer<typeof adminWebhookDelivery>;

export const adminWebhookDeliveryPage = z
  .object({ deliveries: z.array(adminWebhookDelivery), nextCursor: z.string().nullable() })
  .meta({ id: 'AdminWebhookDeliveryPage' });

const badPage = { status: 400 as const, description: 'validation_failed; invalid_cursor' };

/** The administrator's order and webhook look-ups (console "Orders" and "Failed work"). */
export const operationsApiRoutes: ApiRoute[] = [
  { method: 'get', path: '/admin/orders', summary: 'Find orders by short id, order id or customer e-mail, newest first (cursor paging)', tag: 'Admin orders', access: 'admin', query: adminOrdersQuery, success: { status: 200, body: adminOrderPage }, problems: [{ status: 400, description: 'validation_failed; unusable_query: q is not a short id, an order id or an e-mail; invalid_cursor' }] },
  { method: 'get', path: '/admin/orders/{id}', summary: 'An order: sub-orders, payment and payment notifications (no payloads), and its timeline', tag: 'Admin orders', access: 'admin', params: uuidParam, success: { status: 200, body: adminOrderDetail } },
  { method: 'get', path: '/admin/vendor/orders/{orderId}/shipments', summary: "An order's shipments (one per sub-order) with their stores and tracking", tag: 'Admin orders', access: 'admin', params: orderIdParam, success: { status: 200, body: z.array(adminShipment) } },
  { method: 'get', path: '/admin/vendor/webhook-deliveries', summary: 'Failing (still retried) or failed webhook deliveries across stores, newest first (cursor paging)', tag: 'Operations', access: 'admin', query: adminWebhookDeliveriesQuery, success: { status: 200, body: adminWebhookDeliveryPage }, problems: [badPage] },
  { method: 'post', path: '/admin/vendor/webhook-deliveries/{id}/retry', summary: 'Send a webhook delivery again now (same webhook-id)', tag: 'Operations', access: 'admin', params: uuidParam, success: { status: 200, body: adminWebhookDelivery }, problems: [{ status: 409, description: 'delivery_pending: an attempt is running now; endpoint_disabled: the store has to enable the endpoint first' }] },
];
