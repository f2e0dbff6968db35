import type { ReturnRequestJson, VendorReturnRequestJson } from '@pasar/contracts';
import type { LoadedReturn } from './read';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** The spec's Return request. */
export function toReturnRequestJson(r: LoadedReturn): ReturnRequestJson {
  return {
    id: r.id,
    order_id: r.orderId,
    status: r.status,
    reason: r.reason,
    comment: r.comment,
    created_at: r.createdAt.toISOString(),
    order_created_at: r.orderCreatedAt.toISOString(),
    items: r.items.map((item) => ({ orderItemId: item.orderItemId, productName: item.productName })),
    evidence_paths: r.evidencePaths,
    rejection_reason: r.rejectionReason,
    vendor_reviewed_at: iso(r.vendorReviewedAt),
    received_at: iso(r.receivedAt),
    refunded_at: iso(r.refundedAt),
  };
}

/** The Return request plus what its store's vendor needs: sub-order, store, customer, refund. */
export function toVendorReturnJson(r: LoadedReturn): VendorReturnRequestJson {
  return {
    ...toReturnRequestJson(r),
    sub_order_id: r.subOrderId,
    store_id: r.storeId,
    customer_id: r.customerId,
    refund_amount: r.refundAmount?.toFixed(2) ?? null,
  };
}
