import { z } from 'zod';
import { carrierSchema, courierSchema, shippingRateTypeSchema, subOrderStatusSchema } from '../commerce';
import { money, pageQuery, postalAddress } from './common';

const text = (max: number) => z.string().trim().min(1).max(max);
const days = z.number().int().min(0).max(365).nullish();

/** rate_config is stored as given, but bounded: its JSON at most 16 KiB and nested at most 5 levels. */
export const RATE_CONFIG_MAX_BYTES = 16 * 1024;
export const RATE_CONFIG_MAX_DEPTH = 5;

/** Nesting depth of a JSON value: a scalar is 0, an object or array is 1 + its deepest member. */
export function jsonDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const member of Object.values(value)) deepest = Math.max(deepest, jsonDepth(member));
  return 1 + deepest;
}

// ---------------------------------------------------------------- shipping methods (snake_case, spec)

/** Body of POST and PUT /vendor/shipping-methods. */
export const shippingMethodBody = z
  .object({
    name: text(100),
    provider: carrierSchema,
    type: shippingRateTypeSchema,
    rate_config: z
      .record(z.string(), z.unknown())
      .refine((config) => Buffer.byteLength(JSON.stringify(config), 'utf8') <= RATE_CONFIG_MAX_BYTES, {
        message: `rate_config must be at most ${RATE_CONFIG_MAX_BYTES} bytes of JSON`,
      })
      .refine((config) => jsonDepth(config) <= RATE_CONFIG_MAX_DEPTH, {
        message: `rate_config must be nested at most ${RATE_CONFIG_MAX_DEPTH} levels deep`,
      })
      .meta({
        description:
          'Stored as given (no server-side shape check), but at most 16 KiB of JSON nested at most 5 levels (else 400). ' +
          'flat: {rate}; weight: {base_rate, per_kg}; dimension: {base_rate, per_cm3}.',
      }),
    estimated_days_min: days,
    estimated_days_max: days,
  })
  .strict()
  .refine((b) => b.estimated_days_min == null || b.estimated_days_max == null || b.estimated_days_min <= b.estimated_days_max, {
    message: 'estimated_days_min must not exceed estimated_days_max',
    path: ['estimated_days_min'],
  })
  .meta({ id: 'ShippingMethodRequest', description: 'A new method starts inactive; activate it with POST .../activate.' });
export type ShippingMethodBody = z.infer<typeof shippingMethodBody>;

export const vendorShippingMethod = z
  .object({
    id: z.uuid(),
    store_id: z.uuid(),
    name: z.string(),
    provider: carrierSchema,
    type: shippingRateTypeSchema,
    rate_config: z.record(z.string(), z.unknown()),
    estimated_days_min: z.number().int().nullable(),
    estimated_days_max: z.number().int().nullable(),
    is_active: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'VendorShippingMethod' });
export type VendorShippingMethod = z.infer<typeof vendorShippingMethod>;

export const activateShippingMethodBody = z.object({ active: z.boolean() }).strict().meta({ id: 'ActivateShippingMethodRequest' });

/** The refusal text of an activation blocked by products without weight or dimensions. */
export const ACTIVATION_BLOCKED_ERROR = 'products lack weight or dimensions';

export const activationResult = z
  .object({
    success: z.boolean(),
    error: z.string().nullable().meta({ description: `null on success; "${ACTIVATION_BLOCKED_ERROR}" when blocked` }),
    blockedProducts: z.array(z.object({ id: z.uuid(), name: z.string() })),
  })
  .meta({ id: 'ShippingMethodActivation' });
export type ActivationResult = z.infer<typeof activationResult>;

// ---------------------------------------------------------------- pickup addresses (snake_case, spec)

/** Body of POST and PUT /vendor/pickup-addresses. */
export const pickupAddressBody = z
  .object({
    label: text(50),
    address_line_1: text(200),
    postcode: text(20),
    state: text(100),
    is_default: z
      .boolean()
      .optional()
      .meta({ description: "true: this becomes the store's default and the other default is unset in the same transaction; false unsets it; absent on PUT keeps it." }),
  })
  .strict()
  .meta({ id: 'PickupAddressRequest' });
export type PickupAddressBody = z.infer<typeof pickupAddressBody>;

export const vendorPickupAddress = z
  .object({
    id: z.uuid(),
    store_id: z.uuid(),
    label: z.string(),
    address_line_1: z.string(),
    postcode: z.string(),
    state: z.string(),
    is_default: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'VendorPickupAddress' });
export type VendorPickupAddress = z.infer<typeof vendorPickupAddress>;

// ---------------------------------------------------------------- shipments (camelCase, DESIGN §7)

export const SHIPMENTS_PAGE_SIZE = 20;

export const shipmentsQuery = pageQuery.extend({ status: subOrderStatusSchema.optional() });

export const shipShipmentBody = z
  .object({
    courier: courierSchema,
    trackingId: text(100),
    trackingUrl: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .nullish()
      .meta({ description: "Absent: built from the courier's URL template. Required for courier `other`." }),
  })
  .strict()
  .meta({ id: 'ShipShipmentRequest' });
export type ShipShipmentBody = z.infer<typeof shipShipmentBody>;

export const cancelShipmentBody = z
  .object({ reason: z.string().trim().max(500).nullish() })
  .strict()
  .meta({ id: 'CancelShipmentRequest', description: 'May be empty or absent.' });
export type CancelShipmentBody = z.infer<typeof cancelShipmentBody>;

const timestamp = z.iso.datetime().nullable();

export const shipmentSummary = z
  .object({
    id: z.uuid().meta({ description: 'The sub-order id' }),
    orderId: z.uuid(),
    shortId: z.string(),
    status: subOrderStatusSchema,
    total: money,
    itemCount: z.number().int(),
    recipientName: z.string(),
    courier: z.string().nullable(),
    trackingId: z.string().nullable(),
    trackingUrl: z.string().nullable(),
    createdAt: z.iso.datetime(),
    paidAt: timestamp,
    shippedAt: timestamp,
    deliveredAt: timestamp,
    cancelledAt: timestamp,
  })
  .meta({ id: 'ShipmentSummary' });
export type ShipmentSummary = z.infer<typeof shipmentSummary>;

export const shipmentPage = z
  .object({ shipments: z.array(shipmentSummary), page: z.number().int(), totalPages: z.number().int() })
  .meta({ id: 'ShipmentPage', description: `Newest first, ${SHIPMENTS_PAGE_SIZE} per page.` });
export type ShipmentPage = z.infer<typeof shipmentPage>;

export const shipmentDetail = shipmentSummary
  .extend({
    storeId: z.uuid(),
    shippingMethodId: z.uuid().nullable(),
    subtotal: money,
    shippingFee: money,
    cancelReason: z.string().nullable(),
    updatedAt: z.iso.datetime(),
    recipient: postalAddress,
    items: z.array(
      z.object({
        id: z.uuid(),
        productId: z.uuid(),
        variantId: z.uuid().nullable(),
        productName: z.string(),
        variantName: z.string().nullable(),
        quantity: z.number().int(),
        unitPrice: money,
        weightKg: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'ShipmentDetail' });
export type ShipmentDetail = z.infer<typeof shipmentDetail>;
