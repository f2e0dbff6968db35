import { z } from 'zod';
import { orderStatusSchema, subOrderStatusSchema } from '../commerce';
import { money, postalAddress } from './common';

// Checkout submit, pending order, customer orders and loyalty (DESIGN §7 "Shapes we fixed").

/** The `Idempotency-Key` header of the submits: a retry with the same key and body answers the first order. */
export const idempotencyHeaders = z.object({
  'idempotency-key': z.string().min(1).max(100).optional(),
});

/** At most this many lines in one submit. */
export const MAX_ORDER_LINES = 100;
/** At most this many units of one line. */
export const MAX_LINE_QUANTITY = 999;

export const orderLineRequest = z
  .object({
    productId: z.uuid(),
    variantId: z.uuid().nullish().meta({ description: 'Required when the product has variants.' }),
    quantity: z.number().int().min(1).max(MAX_LINE_QUANTITY),
  })
  .strict();
export type OrderLineRequest = z.infer<typeof orderLineRequest>;

/** POST /checkout/submit: a single-store cart. */
export const submitOrderBody = z
  .object({
    addressId: z.uuid().meta({ description: "One of the caller's addresses." }),
    items: z.array(orderLineRequest).min(1).max(MAX_ORDER_LINES),
    shippingMethodId: z
      .uuid()
      .nullish()
      .meta({ description: "An active shipping method of the cart's store; absent: the cheapest active one (none: shipping 0.00)." }),
    voucherId: z.uuid().nullish(),
    voucherTier: z.string().min(1).max(40).nullish().meta({ description: "When given, must equal the voucher's tier." }),
    kolCode: z.string().trim().min(1).max(100).nullish().meta({ description: 'Discounts the lines of its category.' }),
    loyaltyPoints: z
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .nullish()
      .meta({ description: 'Points to redeem: 100 points = MYR 1.00, at most 50% of the subtotal.' }),
    buyerTin: z.string().max(40).nullish().meta({ description: 'Validated and normalised; saved to the profile when it has none.' }),
  })
  .strict()
  .meta({ id: 'SubmitOrderRequest' });
export type SubmitOrderBody = z.infer<typeof submitOrderBody>;

/** POST /checkout/family/submit: the family's shared cart (all of it, or the listed items). */
export const familySubmitBody = z
  .object({
    cartItemIds: z.array(z.uuid()).min(1).max(MAX_ORDER_LINES).nullish().meta({ description: 'Absent: the whole family cart.' }),
    shippingMethodIds: z
      .array(z.uuid())
      .max(MAX_ORDER_LINES)
      .nullish()
      .meta({ description: 'At most one active method per store of the cart; a store without one gets its cheapest active method.' }),
  })
  .strict()
  .meta({ id: 'FamilySubmitRequest' });
export type FamilySubmitBody = z.infer<typeof familySubmitBody>;

/** The answer of every submit (single, family, B2B). */
export const placedOrder = z
  .object({
    orderId: z.uuid(),
    shortId: z.string().meta({ example: 'PSR-7K2M9QXD' }),
    status: orderStatusSchema,
    subtotal: money,
    discountTotal: money.meta({ description: 'Voucher + KOL discount + the value of the redeemed points.' }),
    shippingTotal: money,
    total: money.meta({ description: 'subtotal - discountTotal + shippingTotal; the payment amount.' }),
    pointsRedeemed: z.number().int(),
  })
  .meta({ id: 'PlacedOrder' });
export type PlacedOrder = z.infer<typeof placedOrder>;

/** GET /checkout/pending-order: the caller's newest unpaid order that has not expired, or null. */
export const pendingOrder = z
  .object({
    orderId: z.uuid(),
    shortId: z.string(),
    status: orderStatusSchema,
    total: money,
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  })
  .nullable()
  .meta({ id: 'PendingOrder' });
export type PendingOrder = z.infer<typeof pendingOrder>;

/** GET /account/orders. */
export const customerOrderList = z
  .object({
    orders: z.array(
      z.object({
        id: z.uuid(),
        shortId: z.string(),
        status: orderStatusSchema,
        total: money,
        createdAt: z.iso.datetime(),
        itemCount: z.number().int().meta({ description: 'Units ordered (sum of the quantities).' }),
      }),
    ),
    page: z.number().int(),
    totalPages: z.number().int().meta({ description: '0 when there is nothing to list.' }),
  })
  .meta({ id: 'CustomerOrderList' });
export type CustomerOrderList = z.infer<typeof customerOrderList>;

const orderItemDetail = z.object({
  id: z.uuid(),
  productId: z.uuid(),
  variantId: z.uuid().nullable(),
  productName: z.string(),
  variantName: z.string().nullable(),
  unitPrice: money,
  quantity: z.number().int(),
  lineTotal: money,
});

/** GET /account/orders/{id}; the B2B order detail mirrors it. */
export const orderDetail = z
  .object({
    id: z.uuid(),
    shortId: z.string(),
    status: orderStatusSchema,
    isB2b: z.boolean(),
    familyId: z.uuid().nullable(),
    buyerTin: z.string().nullable(),
    subtotal: money,
    discountTotal: money,
    shippingTotal: money,
    total: money,
    pointsRedeemed: z.number().int(),
    pointsEarned: z.number().int(),
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    paidAt: z.iso.datetime().nullable(),
    shippingAddress: postalAddress,
    subOrders: z.array(
      z.object({
        id: z.uuid(),
        storeId: z.uuid(),
        storeName: z.string().nullable(),
        status: subOrderStatusSchema,
        shippingFee: money,
        total: money,
        courier: z.string().nullable(),
        trackingId: z.string().nullable(),
        trackingUrl: z.string().nullable(),
        shippedAt: z.iso.datetime().nullable(),
        deliveredAt: z.iso.datetime().nullable(),
        cancelledAt: z.iso.datetime().nullable(),
        items: z.array(orderItemDetail),
      }),
    ),
    payment: z
      .object({
        status: z.enum(['pending', 'paid', 'failed', 'expired']),
        amount: money,
        refundedAmount: money,
        paidAt: z.iso.datetime().nullable(),
      })
      .nullable(),
  })
  .meta({ id: 'OrderDetail' });
export type OrderDetail = z.infer<typeof orderDetail>;

// ---------------------------------------------------------------- loyalty

export const loyaltyTransactionTypeSchema = z.enum(['earn', 'redeem', 'release', 'reversal', 'adjustment']);
export type LoyaltyTransactionType = z.infer<typeof loyaltyTransactionTypeSchema>;

/** GET /account/loyalty (spec: Loyalty account and transaction). */
export const loyaltyResponse = z
  .object({
    balance: z.number().int(),
    totalEarned: z.number().int(),
    totalRedeemed: z.number().int(),
    transactions: z.array(
      z.object({
        id: z.uuid(),
        type: loyaltyTransactionTypeSchema,
        points: z.number().int().meta({ description: 'Signed: earn and release add (+), redeem and reversal take (-).' }),
        order_id: z.uuid().nullable(),
        created_at: z.iso.datetime(),
      }),
    ),
    totalPages: z.number().int().meta({ description: '0 when there is nothing to list.' }),
  })
  .meta({ id: 'LoyaltyAccount' });
export type LoyaltyResponse = z.infer<typeof loyaltyResponse>;

/** GET /account/loyalty-balance. */
export const loyaltyBalance = z.object({ balance: z.number().int() }).meta({ id: 'LoyaltyBalance' });
export type LoyaltyBalance = z.infer<typeof loyaltyBalance>;
