import type { ReturnStatus } from '@pasar/contracts';
import { Prisma } from '../generated/prisma/client';

type Decimal = Prisma.Decimal;
const ZERO = new Prisma.Decimal(0);

/** An order item as a return request is checked against it. */
export interface ReturnableItem {
  id: string;
  storeId: string;
  subOrderId: string;
}

export type ReturnItemsCheck =
  | { ok: true; storeId: string; subOrderId: string }
  | { ok: false; code: 'item_not_in_order' | 'multiple_stores'; detail: string };

/**
 * Whether the requested order items can form one return: every id must be an item of the order
 * (`orderItems` holds the order's items among the requested ids) and all of them must share one
 * store_id (SPEC: otherwise 400); a store has one sub-order per order, which the return belongs to.
 */
export function checkReturnItems(requestedIds: readonly string[], orderItems: readonly ReturnableItem[]): ReturnItemsCheck {
  const byId = new Map(orderItems.map((item) => [item.id, item]));
  const missing = requestedIds.filter((id) => !byId.has(id));
  if (missing.length > 0) return { ok: false, code: 'item_not_in_order', detail: `not items of this order: ${missing.join(', ')}` };
  const items = requestedIds.map((id) => byId.get(id) as ReturnableItem);
  const stores = new Set(items.map((item) => item.storeId));
  if (stores.size > 1) return { ok: false, code: 'multiple_stores', detail: 'all items of a return must come from one store' };
  return { ok: true, storeId: items[0].storeId, subOrderId: items[0].subOrderId };
}

/** What a vendor does to a return (DESIGN §5). */
export type ReturnAction = 'approve' | 'reject' | 'receive' | 'refund';

/** requested → approved | rejected (vendor_reviewed_at) → received (received_at) → refunded (refunded_at). */
export const RETURN_TRANSITIONS: Readonly<Record<ReturnAction, { from: ReturnStatus; to: ReturnStatus }>> = {
  approve: { from: 'requested', to: 'approved' },
  reject: { from: 'requested', to: 'rejected' },
  receive: { from: 'approved', to: 'received' },
  refund: { from: 'received', to: 'refunded' },
};

/** Whether `action` applies to a return in `status`. */
export function canApply(action: ReturnAction, status: ReturnStatus): boolean {
  return RETURN_TRANSITIONS[action].from === status;
}

/** A returned order line as the refund weighs it. */
export interface RefundLine {
  lineTotal: Decimal;
  /** The line's share of all the order's discounts. */
  discount: Decimal;
}

/** What the customer paid for the lines: each line total less its discount (never below zero), summed. */
export function paidValueOf(lines: readonly RefundLine[]): Decimal {
  return lines.reduce((sum, line) => sum.plus(Prisma.Decimal.max(line.lineTotal.minus(line.discount), ZERO)), ZERO);
}

/**
 * How much of `due` the payment can still take as a refund: refunded_amount never goes above the
 * amount, so the refund is clamped to what is left (never below zero).
 */
export function refundableNow(amount: Decimal, alreadyRefunded: Decimal, due: Decimal): Decimal {
  const left = Prisma.Decimal.max(amount.minus(alreadyRefunded), ZERO);
  return Prisma.Decimal.min(due, left);
}

/**
 * Points to take back for refunded lines worth `refunding` (paid value), given the points earned
 * on the order and its paid subtotal (`orderPaid`, which earned them). Shares are cumulative over
 * the order's refunded returns (floor of the refunded part after, less floor of the part before,
 * with `refundedBefore` the paid value of earlier refunded returns), so refunding every line takes
 * back exactly what was earned.
 */
export function returnPointsToReverse(pointsEarned: number, orderPaid: Decimal, refundedBefore: Decimal, refunding: Decimal): number {
  if (pointsEarned <= 0 || orderPaid.lte(0)) return 0;
  const shareOf = (part: Decimal) => Prisma.Decimal.min(part, orderPaid).times(pointsEarned).dividedBy(orderPaid).floor().toNumber();
  return shareOf(refundedBefore.plus(refunding)) - shareOf(refundedBefore);
}
