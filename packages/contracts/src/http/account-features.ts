import { z } from 'zod';
import { returnReasonSchema } from '../commerce';
import { productCard } from './catalog';
import { listQuery, money } from './common';

// Customer account: wishlist, followed stores and their feed, returns; and the vendor side of
// returns (SPEC "Customer account", DESIGN §5 and §7).

// ---------------------------------------------------------------- wishlist

/** A wishlist holds at most this many products (409 `wishlist_full` beyond). */
export const MAX_WISHLIST_ITEMS = 500;

export const wishlistToggleBody = z.object({ productId: z.uuid() }).strict().meta({ id: 'WishlistToggleRequest' });
export type WishlistToggleBody = z.infer<typeof wishlistToggleBody>;

export const wishlistToggleResponse = z
  .object({ wishlisted: z.boolean().meta({ description: 'The new state: true when the product is now on the wishlist.' }) })
  .meta({ id: 'WishlistToggleResponse' });
export type WishlistToggleResponse = z.infer<typeof wishlistToggleResponse>;

export const wishlistIds = z.array(z.uuid()).meta({ id: 'WishlistIds', description: 'Ids of the wishlisted products, newest first.' });

// ---------------------------------------------------------------- followed stores and feed

/** Followed feed pages hold this many products (DESIGN §3). */
export const FOLLOWED_FEED_PAGE_SIZE = 20;
/** A customer follows at most this many stores (409 `follow_limit` beyond). */
export const MAX_FOLLOWED_STORES = 500;

export const followStoreBody = z.object({ storeId: z.uuid() }).strict().meta({ id: 'FollowStoreRequest' });
export type FollowStoreBody = z.infer<typeof followStoreBody>;

export const storeIdParam = z.object({ storeId: z.uuid() });

/** The spec's Followed store. */
export const followedStore = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    logo_url: z.string().nullable().meta({ description: 'PUBLIC_STORAGE_URL + the stored logo path; null without a logo.' }),
  })
  .meta({ id: 'FollowedStore' });
export type FollowedStore = z.infer<typeof followedStore>;

/** page >= 1 (SPEC Limits); a page past the last answers no products. */
export const followedFeedQuery = z.object({ page: z.coerce.number().int().min(1).max(10000).default(1) });
export type FollowedFeedQuery = z.infer<typeof followedFeedQuery>;

export const followedFeed = z
  .object({ products: z.array(productCard), totalPages: z.number().int() })
  .meta({ id: 'FollowedFeed', description: 'Live products of the followed active stores, newest first, 20 per page.' });
export type FollowedFeed = z.infer<typeof followedFeed>;

// ---------------------------------------------------------------- returns

export const returnStatusSchema = z.enum(['requested', 'approved', 'rejected', 'received', 'refunded']);
export type ReturnStatus = z.infer<typeof returnStatusSchema>;


/** A return carries at most this many evidence paths, each at most MAX_EVIDENCE_PATH_LENGTH characters. */
export const MAX_EVIDENCE_PATHS = 10;
export const MAX_EVIDENCE_PATH_LENGTH = 500;
/** A return lists at most this many order items. */
export const MAX_RETURN_ITEMS = 100;

const returnItemRequest = z
  .object({
    orderItemId: z.uuid(),
    productName: z.string().trim().min(1).max(300).meta({ description: "As the spec shows; the order item's own product name is what the return records." }),
  })
  .strict();

/** POST /account/returns. */
export const createReturnBody = z
  .object({
    orderId: z.uuid(),
    reason: returnReasonSchema,
    comment: z.string().trim().max(2000).nullish().meta({ description: 'Empty, null or absent: none.' }),
    items: z
      .array(returnItemRequest)
      .min(1)
      .max(MAX_RETURN_ITEMS)
      .meta({ description: 'Items of the order, all of one store, none in another open return.' }),
    evidencePaths: z.array(z.string().trim().min(1).max(MAX_EVIDENCE_PATH_LENGTH)).max(MAX_EVIDENCE_PATHS).default([]),
  })
  .strict()
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.items.forEach((item, index) => {
      if (seen.has(item.orderItemId)) ctx.addIssue({ code: 'custom', path: ['items', index, 'orderItemId'], message: 'an order item appears twice' });
      seen.add(item.orderItemId);
    });
  })
  .meta({ id: 'CreateReturnRequest' });
export type CreateReturnBody = z.infer<typeof createReturnBody>;

const timestamp = z.iso.datetime();

/** The spec's Return request (snake_case, items in camelCase as the spec shows). */
export const returnRequest = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    status: returnStatusSchema,
    reason: returnReasonSchema,
    comment: z.string().nullable(),
    created_at: timestamp,
    order_created_at: timestamp,
    items: z.array(z.object({ orderItemId: z.uuid(), productName: z.string() })),
    evidence_paths: z.array(z.string()),
    rejection_reason: z.string().nullable(),
    vendor_reviewed_at: timestamp.nullable(),
    received_at: timestamp.nullable(),
    refunded_at: timestamp.nullable(),
  })
  .meta({ id: 'ReturnRequest' });
export type ReturnRequestJson = z.infer<typeof returnRequest>;

/** A return as its store's vendor sees it: the Return request plus its sub-order, customer and refund. */
export const vendorReturnRequest = returnRequest
  .extend({
    sub_order_id: z.uuid(),
    store_id: z.uuid(),
    customer_id: z.uuid(),
    refund_amount: money.nullable().meta({ description: 'What the refund added to the payment (never above its amount); null before the refund.' }),
  })
  .meta({ id: 'VendorReturnRequest' });
export type VendorReturnRequestJson = z.infer<typeof vendorReturnRequest>;

export const vendorReturnsQuery = listQuery.extend({ status: returnStatusSchema.optional() });
export type VendorReturnsQuery = z.infer<typeof vendorReturnsQuery>;

export const rejectReturnBody = z.object({ reason: z.string().trim().min(1).max(1000) }).strict().meta({ id: 'RejectReturnRequest' });
export type RejectReturnBody = z.infer<typeof rejectReturnBody>;
