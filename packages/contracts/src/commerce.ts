import { z } from 'zod';
import { postalAddress } from './address';
import { defineEvent, defineRpc } from './messaging';

const MONEY = /^-?\d{1,10}\.\d{2}$/;

/** Why a customer returns items (the return request and its `checkout.return.requested` event). */
export const returnReasonSchema = z.enum(['wrong_item', 'damaged', 'defective', 'not_as_described', 'missing_parts', 'changed_mind', 'other']);
export type ReturnReason = z.infer<typeof returnReasonSchema>;

/** Money on the wire (events, rpc, HTTP): a string with two decimals, e.g. "12.50". */
export const moneyString = z.string().regex(MONEY, 'money as a string with two decimals');

/** Sub-order = shipment (same id), DESIGN §5. */
export const subOrderStatusSchema = z.enum(['pending_payment', 'paid', 'processing', 'awaiting_pickup', 'shipped', 'delivered', 'cancelled']);
export type SubOrderStatus = z.infer<typeof subOrderStatusSchema>;

/** Parent order, DESIGN §5. */
export const orderStatusSchema = z.enum([
  'pending_payment',
  'paid',
  'processing',
  'partially_shipped',
  'shipped',
  'delivered',
  'cancelled',
  'payment_failed',
  'expired',
]);
export type OrderStatus = z.infer<typeof orderStatusSchema>;

export const carrierSchema = z.enum(['carrier_a', 'carrier_b']);
export const courierSchema = z.enum(['carrier_a', 'carrier_b', 'other']);
export const shippingRateTypeSchema = z.enum(['flat', 'weight', 'dimension']);


// ---------------------------------------------------------------- vendor → checkout

/** vendor → checkout: the store replica (name, slug, logo, status, owner). */
export const vendorStoreUpserted = defineEvent(
  'vendor.store.upserted',
  z.object({
    storeId: z.uuid(),
    ownerUserId: z.uuid(),
    name: z.string(),
    slug: z.string(),
    logoPath: z.string().nullable(),
    status: z.enum(['active', 'suspended']),
    updatedAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `store:${d.storeId}` },
);

const shippingMethodData = z.object({
  id: z.uuid(),
  storeId: z.uuid(),
  name: z.string(),
  provider: carrierSchema,
  type: shippingRateTypeSchema,
  /** Stored as the vendor gave it (spec); checkout reads the keys its type needs. */
  rateConfig: z.record(z.string(), z.unknown()),
  estimatedDaysMin: z.number().int().nullable(),
  estimatedDaysMax: z.number().int().nullable(),
  isActive: z.boolean(),
  updatedAt: z.iso.datetime(),
});

/** vendor → checkout: the shipping-method replica used for quotes. */
export const vendorShippingMethodUpserted = defineEvent('vendor.shipping_method.upserted', shippingMethodData, { aggregateOf: (d) => `shipping_method:${d.id}` });
export const vendorShippingMethodDeleted = defineEvent(
  'vendor.shipping_method.deleted',
  z.object({ id: z.uuid(), storeId: z.uuid(), deletedAt: z.iso.datetime() }),
  { aggregateOf: (d) => `shipping_method:${d.id}` },
);

/** vendor → checkout, admin: a shipment (= sub-order) changed status. */
export const vendorShipmentStatusChanged = defineEvent(
  'vendor.shipment.status_changed',
  z.object({
    shipmentId: z.uuid(),
    orderId: z.uuid(),
    storeId: z.uuid(),
    status: subOrderStatusSchema,
    previousStatus: subOrderStatusSchema,
    courier: z.string().nullable(),
    trackingId: z.string().nullable(),
    trackingUrl: z.string().nullable(),
    shippedAt: z.iso.datetime().nullable(),
    deliveredAt: z.iso.datetime().nullable(),
    cancelledAt: z.iso.datetime().nullable(),
    reason: z.string().nullable(),
    changedAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `shipment:${d.shipmentId}` },
);

// ---------------------------------------------------------------- checkout → vendor, b2b

const orderItemData = z.object({
  orderItemId: z.uuid(),
  productId: z.uuid(),
  variantId: z.uuid().nullable(),
  productName: z.string(),
  variantName: z.string().nullable(),
  quantity: z.number().int().positive(),
  unitPrice: moneyString,
  weightKg: z.string().nullable(),
});

// The fast path of checkout.order.created's check (acceptsOrderCreated): the same patterns as zod's z.uuid() and z.iso.datetime().
const UUID = z.regexes.uuid();
const DATETIME = z.regexes.datetime({});

/** A plain object with exactly these keys (z.object strips any other key: then the parse must run). */
function hasExactly(value: unknown, keyCount: number): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && Object.keys(value).length === keyCount;
}
const isString = (value: unknown): value is string => typeof value === 'string';
const isNullableString = (value: unknown) => value === null || typeof value === 'string';
const isUuid = (value: unknown) => typeof value === 'string' && UUID.test(value);
const isNullableUuid = (value: unknown) => value === null || isUuid(value);
const isMoney = (value: unknown) => typeof value === 'string' && MONEY.test(value);
/** Every element (a hole in a sparse array is an undefined one, which `every` would skip). */
function everyOf(value: unknown, accepts: (element: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i += 1) if (!accepts(value[i])) return false;
  return true;
}

function acceptsOrderItem(item: unknown): boolean {
  return (
    hasExactly(item, 8) &&
    isUuid(item.orderItemId) &&
    isUuid(item.productId) &&
    isNullableUuid(item.variantId) &&
    isString(item.productName) &&
    isNullableString(item.variantName) &&
    Number.isSafeInteger(item.quantity) &&
    (item.quantity as number) > 0 &&
    isMoney(item.unitPrice) &&
    isNullableString(item.weightKg)
  );
}

function acceptsSubOrder(sub: unknown): boolean {
  return (
    hasExactly(sub, 7) &&
    isUuid(sub.subOrderId) &&
    isUuid(sub.storeId) &&
    isNullableUuid(sub.shippingMethodId) &&
    isMoney(sub.subtotal) &&
    isMoney(sub.shippingFee) &&
    isMoney(sub.total) &&
    everyOf(sub.items, acceptsOrderItem)
  );
}

function acceptsAddress(address: unknown): boolean {
  return (
    hasExactly(address, 7) &&
    isString(address.fullName) &&
    isString(address.phone) &&
    isString(address.addressLine1) &&
    isNullableString(address.addressLine2) &&
    isString(address.city) &&
    isString(address.postcode) &&
    isString(address.state)
  );
}

/**
 * True only when `data` is exactly what checkoutOrderCreated's schema would answer for it (the
 * contract's `accepts`): one event per submitted order, and checkout builds it itself, so a
 * hand-written check of the same rules saves the zod parse on the hot path. False: the parse runs.
 * commerce.test.ts checks that whatever this accepts, the schema accepts unchanged.
 */
export function acceptsOrderCreated(data: unknown): boolean {
  return (
    hasExactly(data, 11) &&
    isUuid(data.orderId) &&
    isString(data.shortId) &&
    isUuid(data.customerId) &&
    typeof data.isB2b === 'boolean' &&
    isNullableUuid(data.familyId) &&
    everyOf(data.purchaseRequestIds, isUuid) &&
    isNullableString(data.buyerTin) &&
    isMoney(data.total) &&
    acceptsAddress(data.shippingAddress) &&
    everyOf(data.subOrders, acceptsSubOrder) &&
    typeof data.createdAt === 'string' &&
    DATETIME.test(data.createdAt)
  );
}

/**
 * The route key of checkout.order.created: `b2b` for a B2B order, `retail` for the rest. b2b
 * listens on the b2b part only; vendor on both.
 */
export const orderCreatedRouteKey = (data: unknown): 'b2b' | 'retail' =>
  typeof data === 'object' && data !== null && (data as { isB2b?: unknown }).isB2b === true ? 'b2b' : 'retail';

/** checkout → vendor (one shipment per sub-order), b2b (requests paid; B2B orders only, by route). */
export const checkoutOrderCreated = defineEvent(
  'checkout.order.created',
  z.object({
    orderId: z.uuid(),
    shortId: z.string(),
    customerId: z.uuid(),
    isB2b: z.boolean(),
    familyId: z.uuid().nullable(),
    purchaseRequestIds: z.array(z.uuid()),
    buyerTin: z.string().nullable(),
    total: moneyString,
    shippingAddress: postalAddress,
    subOrders: z.array(
      z.object({
        subOrderId: z.uuid(),
        storeId: z.uuid(),
        shippingMethodId: z.uuid().nullable(),
        subtotal: moneyString,
        shippingFee: moneyString,
        total: moneyString,
        items: z.array(orderItemData),
      }),
    ),
    createdAt: z.iso.datetime(),
  }),
  { accepts: acceptsOrderCreated, route: { keys: ['b2b', 'retail'], keyOf: orderCreatedRouteKey }, aggregateOf: (d) => `order:${d.orderId}` },
);

/**
 * The company that bought a B2B order (the gateway's B2B live stream takes the order's events from
 * it without asking b2b); null for any other order and for a B2B order placed before checkout
 * recorded it; absent from checkouts before it (a consumer falls back to asking b2b).
 */
const buyingCompany = z.uuid().nullish();

/** checkout → vendor (shipments pending_payment → paid), b2b, notifier. */
export const checkoutOrderPaid = defineEvent(
  'checkout.order.paid',
  z.object({
    orderId: z.uuid(),
    shortId: z.string(),
    customerId: z.uuid(),
    isB2b: z.boolean(),
    companyId: buyingCompany,
    subOrderIds: z.array(z.uuid()),
    total: moneyString,
    paidAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `order:${d.orderId}` },
);

/**
 * checkout → vendor (webhooks): a customer asked to return items of a delivered sub-order. Only
 * what the store's vendor reads through its API: ids, reason, the items and their amounts (money
 * as strings); never the customer's id, e-mail or any token.
 */
export const checkoutReturnRequested = defineEvent(
  'checkout.return.requested',
  z.object({
    returnId: z.uuid(),
    orderId: z.uuid(),
    subOrderId: z.uuid(),
    storeId: z.uuid(),
    reason: returnReasonSchema,
    comment: z.string().nullable(),
    /** The order's items as checkout.order.created carried them, less the weight, with their line total. */
    items: z.array(orderItemData.omit({ weightKg: true }).extend({ lineTotal: moneyString })),
    /** The items' line totals together. */
    amount: moneyString,
    requestedAt: z.iso.datetime(),
  }),
  // behind the order's own events when one of them waits for a failed publish
  { aggregateOf: (d) => `order:${d.orderId}` },
);

/** checkout → b2b: the parent order moved (B2B read model). */
export const checkoutOrderStatusChanged = defineEvent(
  'checkout.order.status_changed',
  z.object({
    orderId: z.uuid(),
    isB2b: z.boolean(),
    companyId: buyingCompany,
    status: orderStatusSchema,
    previousStatus: orderStatusSchema,
    changedAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `order:${d.orderId}` },
);

// ---------------------------------------------------------------- admin → vendor

/** admin → vendor: a carrier booking succeeded; tracking fields, status awaiting_pickup. */
export const adminShipmentBooked = defineEvent(
  'admin.shipment.booked',
  z.object({
    shipmentId: z.uuid(),
    carrier: carrierSchema,
    trackingNumber: z.string(),
    trackingUrl: z.string().nullable(),
    bookedAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `shipment:${d.shipmentId}` },
);

// ---------------------------------------------------------------- rpc

/** vendor asks checkout before activating a carrier method (spec: Shipping method). */
export const checkoutProductsMissingDimensions = defineRpc(
  'rpc.checkout.products_missing_dimensions',
  z.object({ storeId: z.uuid() }),
  z.object({ products: z.array(z.object({ id: z.uuid(), name: z.string() })) }),
);

/** b2b asks checkout for a price snapshot (variant override over base price) and weight. */
export const checkoutProductSnapshot = defineRpc(
  'rpc.checkout.product_snapshot',
  z.object({ productId: z.uuid(), variantId: z.uuid().nullish() }),
  z.object({
    productId: z.uuid(),
    variantId: z.uuid().nullable(),
    name: z.string(),
    variantName: z.string().nullable(),
    imagePath: z.string().nullable(),
    storeId: z.uuid(),
    storeName: z.string().nullable(),
    status: z.enum(['draft', 'live', 'archived']),
    unitPrice: moneyString,
    weightKg: z.string().nullable(),
  }),
);

/** admin's vendor-application approval creates the store (idempotent by application id). */
export const vendorCreateStore = defineRpc(
  'rpc.vendor.create_store',
  z.object({
    applicationId: z.uuid(),
    ownerUserId: z.uuid(),
    name: z.string().min(1).max(200),
    description: z.string().max(5000).nullish(),
    logoPath: z.string().nullish(),
    bannerPath: z.string().nullish(),
    tin: z.string(),
    msicCode: z.string(),
    sstRegNo: z.string().nullish(),
    bankName: z.string(),
    bankAccountNumber: z.string(),
    bankAccountName: z.string(),
    consent: z.object({ accepted: z.boolean(), acceptedAt: z.iso.datetime().nullable(), tosVersion: z.string().nullable() }),
  }),
  z.object({ storeId: z.uuid(), created: z.boolean() }),
);

/** admin's carrier booking asks vendor for the shipment, its items and the pickup address. */
export const vendorBookingContext = defineRpc(
  'rpc.vendor.booking_context',
  z.object({ shipmentId: z.uuid() }),
  z.object({
    shipment: z.object({ id: z.uuid(), orderId: z.uuid(), storeId: z.uuid(), status: subOrderStatusSchema, shippingMethodId: z.uuid().nullable() }),
    provider: carrierSchema.nullable(),
    recipient: postalAddress,
    items: z.array(
      z.object({
        productName: z.string(),
        quantity: z.number().int(),
        weightKg: z.string().nullable(),
        /** Parcel dimensions where known (volumetric weight); absent or null: unknown. */
        dimensionsCm: z.object({ lengthCm: z.string(), widthCm: z.string(), heightCm: z.string() }).nullable().optional(),
      }),
    ),
    pickupAddress: z
      .object({ id: z.uuid(), label: z.string(), addressLine1: z.string(), postcode: z.string(), state: z.string() })
      .nullable(),
    /** The shipping cost quoted for this shipment (its shipping fee at checkout); absent or null: unknown. */
    quote: z.object({ amount: z.string(), currency: z.string() }).nullable().optional(),
  }),
);
