import { z } from 'zod';
import { checkoutReturnRequested, subOrderStatusSchema } from '../commerce';
import type { ApiRoute } from './api-route';
import { money, uuidParam } from './common';

// ---------------------------------------------------------------- vendor webhooks (Standard Webhooks)

/** The events a vendor can subscribe an endpoint to. `ping` is sent by POST .../test only. */
export const WEBHOOK_EVENT_TYPES = ['sub_order.created', 'sub_order.paid', 'sub_order.cancelled', 'shipment.status_changed', 'return.requested'] as const;
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/** At most this many endpoints per store. */
export const MAX_WEBHOOK_ENDPOINTS = 10;

const endpointUrl = z.url({ protocol: /^https?$/ }).max(2000);
const eventList = z
  .array(webhookEventTypeSchema)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .refine((events) => new Set(events).size === events.length, { message: 'each event at most once' });

export const createWebhookBody = z
  .object({ url: endpointUrl, events: eventList, description: z.string().trim().max(500).optional() })
  .strict()
  .meta({ id: 'CreateWebhookRequest', description: 'https only in production; addresses resolving to private ranges are refused there' });
export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

export const updateWebhookBody = z
  .object({ url: endpointUrl, events: eventList, description: z.string().trim().max(500).nullable(), enabled: z.boolean() })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one of url, events, description, enabled' })
  .meta({ id: 'UpdateWebhookRequest', description: 'Re-enabling does not replay what failed while disabled (POST .../replay does)' });
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;

export const webhookEndpoint = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(webhookEventTypeSchema),
    enabled: z.boolean(),
    /** Why it was disabled: `gone` (the receiver answered 410), `failing` (3 days of failures), `vendor`. */
    disabledReason: z.string().nullable(),
    /** Since when every attempt failed (null after a success). */
    failingSince: z.iso.datetime().nullable(),
    /** Until when deliveries also carry a signature with the previous secret (after a rotation). */
    previousSecretExpiresAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointView = z.infer<typeof webhookEndpoint>;

/** The secret (`whsec_` + base64 of 32 random bytes) is answered only here, once. */
export const createdWebhookEndpoint = webhookEndpoint.extend({ secret: z.string().startsWith('whsec_') }).meta({ id: 'CreatedWebhookEndpoint' });

export const rotatedWebhookSecret = z
  .object({ secret: z.string().startsWith('whsec_'), previousSecretExpiresAt: z.iso.datetime() })
  .meta({ id: 'RotatedWebhookSecret' });

export const webhookDeliveryStatusSchema = z.enum(['pending', 'delivered', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof webhookDeliveryStatusSchema>;

/** The sub-order events (their data is the sub-order); `return.requested` carries the return. */
const SHIPMENT_EVENT_TYPES = ['sub_order.created', 'sub_order.paid', 'sub_order.cancelled', 'shipment.status_changed'] as const satisfies readonly WebhookEventType[];

/**
 * The data of `return.requested`: the return as the store's vendor reads it (ids, reason, items,
 * amounts as strings; no customer id or e-mail), as checkout announced it.
 */
export const webhookReturnData = checkoutReturnRequested.data;

/** A shipment's carrier and the times it moved, as the vendor's and the operators' views show them. */
export const shipmentProgress = {
  courier: z.string().nullable(),
  trackingId: z.string().nullable(),
  trackingUrl: z.string().nullable(),
  cancelReason: z.string().nullable(),
  createdAt: z.iso.datetime(),
  paidAt: z.iso.datetime().nullable(),
  shippedAt: z.iso.datetime().nullable(),
  deliveredAt: z.iso.datetime().nullable(),
  cancelledAt: z.iso.datetime().nullable(),
};

/** The data of the sub-order events: the sub-order (= shipment) as GET /vendor/shipments/{id} shows it. */
export const webhookShipmentData = z.object({
  subOrderId: z.uuid(),
  shipmentId: z.uuid(),
  orderId: z.uuid(),
  shortId: z.string(),
  storeId: z.uuid(),
  status: subOrderStatusSchema,
  previousStatus: subOrderStatusSchema.nullable(),
  /** 1 when the sub-order was created, one more on each status change: order events of one shipment by it. */
  sequence: z.number().int().min(1),
  subtotal: money,
  shippingFee: money,
  total: money,
  ...shipmentProgress,
});

/** The JSON body a receiver gets (Standard Webhooks `{type, timestamp, data}`). */
export const webhookEventPayload = z
  .discriminatedUnion('type', [
    z.object({ type: z.enum(SHIPMENT_EVENT_TYPES), timestamp: z.iso.datetime(), data: webhookShipmentData }),
    z.object({ type: z.literal('return.requested'), timestamp: z.iso.datetime(), data: webhookReturnData }),
    z.object({ type: z.literal('ping'), timestamp: z.iso.datetime(), data: z.object({ endpointId: z.uuid() }) }),
  ])
  .meta({ id: 'WebhookEvent' });
export type WebhookEventPayload = z.infer<typeof webhookEventPayload>;

export const webhookAttempt = z.object({
  attemptedAt: z.iso.datetime(),
  /** null: no HTTP answer (network error, timeout, refused address). */
  httpStatus: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  /** The first 1 KiB of the answer's body. */
  responseBody: z.string().nullable(),
});

export const webhookDelivery = z
  .object({
    id: z.uuid(),
    endpointId: z.uuid(),
    /** The `webhook-id` header: the same on every attempt. */
    webhookId: z.string(),
    eventType: z.string(),
    payload: z.record(z.string(), z.unknown()),
    status: webhookDeliveryStatusSchema,
    attempts: z.array(webhookAttempt),
    /** When the next attempt is due (null when delivered or failed). */
    nextAttemptAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryView = z.infer<typeof webhookDelivery>;

export const webhookDeliveriesQuery = z.object({
  status: webhookDeliveryStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** nextCursor of the previous page. */
  cursor: z.string().max(200).optional(),
});
export type WebhookDeliveriesQuery = z.infer<typeof webhookDeliveriesQuery>;

export const webhookDeliveryPage = z
  .object({ deliveries: z.array(webhookDelivery), nextCursor: z.string().nullable() })
  .meta({ id: 'WebhookDeliveryPage' });

/** Sends the endpoint's failed deliveries created at or after `since` again (e.g. after re-enabling it). */
export const replayWebhookBody = z.object({ since: z.iso.datetime() }).strict().meta({ id: 'ReplayWebhookRequest' });
export const replayedWebhooks = z.object({ requeued: z.number().int() }).meta({ id: 'ReplayedWebhooks' });

const noStore = { status: 403 as const, description: 'Wrong role, or no_store: the vendor has no store yet' };
const badUrl = {
  status: 400 as const,
  description: 'validation_failed; unsafe_url: not https (production), or resolves to a private, loopback, link-local or metadata address',
};

/** The vendor webhook routes of the OpenAPI document (apiRoutes). */
export const webhookApiRoutes: ApiRoute[] = [
  { method: 'post', path: '/vendor/webhooks', summary: 'Add a webhook endpoint; the secret is answered this once (at most 10 per store)', tag: 'Vendor webhooks', access: 'vendor', body: createWebhookBody, success: { status: 201, body: createdWebhookEndpoint }, problems: [badUrl, noStore, { status: 409, description: 'endpoint_limit: the store has 10 endpoints' }] },
  { method: 'get', path: '/vendor/webhooks', summary: "The store's webhook endpoints, oldest first (no secrets)", tag: 'Vendor webhooks', access: 'vendor', success: { status: 200, body: z.array(webhookEndpoint) }, problems: [noStore] },
  { method: 'get', path: '/vendor/webhooks/{id}', summary: 'One webhook endpoint', tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, success: { status: 200, body: webhookEndpoint }, problems: [noStore] },
  { method: 'patch', path: '/vendor/webhooks/{id}', summary: 'Change url, events, description or enabled; re-enabling clears the failure state', tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, body: updateWebhookBody, success: { status: 200, body: webhookEndpoint }, problems: [badUrl, noStore] },
  { method: 'delete', path: '/vendor/webhooks/{id}', summary: 'Delete the endpoint and its deliveries', tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [noStore] },
  { method: 'post', path: '/vendor/webhooks/{id}/rotate-secret', summary: 'A new secret, answered once; for 24 h deliveries are signed with the new and the previous one', tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, success: { status: 200, body: rotatedWebhookSecret }, problems: [noStore] },
  { method: 'post', path: '/vendor/webhooks/{id}/test', summary: 'Queue a `ping` delivery to the endpoint now', tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, success: { status: 201, body: webhookDelivery }, problems: [noStore, { status: 409, description: 'endpoint_disabled: enable it first' }] },
  { method: 'get', path: '/vendor/webhooks/{id}/deliveries', summary: "The endpoint's deliveries, newest first, with their attempts (cursor paging)", tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, query: webhookDeliveriesQuery, success: { status: 200, body: webhookDeliveryPage }, problems: [noStore, { status: 400, description: 'validation_failed; invalid_cursor' }] },
  { method: 'post', path: '/vendor/webhooks/{id}/replay', summary: 'Send the failed deliveries created since a time again (same webhook-id each)', tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, body: replayWebhookBody, success: { status: 200, body: replayedWebhooks }, problems: [noStore, { status: 409, description: 'endpoint_disabled: enable it first' }] },
  { method: 'post', path: '/vendor/webhooks/deliveries/{id}/retry', summary: 'Send a failed (or delivered) delivery again now, with the same webhook-id', tag: 'Vendor webhooks', access: 'vendor', params: uuidParam, success: { status: 200, body: webhookDelivery }, problems: [noStore, { status: 409, description: 'delivery_pending: it is still being tried; endpoint_disabled: enable it first' }] },
];
