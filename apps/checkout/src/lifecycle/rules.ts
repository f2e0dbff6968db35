import type { OrderStatus, SubOrderStatus } from '@pasar/contracts';
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client';

/** The parent statuses a paid order moves through, in order; the parent never moves back along it. */
const PAID_PROGRESS: readonly OrderStatus[] = ['paid', 'processing', 'partially_shipped', 'shipped', 'delivered'];

const isShippedOrDelivered = (s: SubOrderStatus) => s === 'shipped' || s === 'delivered';
const isBeingPrepared = (s: SubOrderStatus) => s === 'processing' || s === 'awaiting_pickup';

/**
 * What the sub-orders say the parent is (DESIGN §5), over the sub-orders that are not cancelled:
 * none left → cancelled; all delivered → delivered; all shipped or delivered → shipped; any
 * shipped or delivered → partially_shipped; any processing or awaiting_pickup → processing; else paid.
 */
export function parentStatusOf(subOrderStatuses: readonly SubOrderStatus[]): OrderStatus {
  const live = subOrderStatuses.filter((s) => s !== 'cancelled');
  if (live.length === 0) return 'cancelled';
  if (live.every((s) => s === 'delivered')) return 'delivered';
  if (live.every(isShippedOrDelivered)) return 'shipped';
  if (live.some(isShippedOrDelivered)) return 'partially_shipped';
  if (live.some(isBeingPrepared)) return 'processing';
  return 'paid';
}

/**
 * The parent order's status after a sub-order changed. Only a paid order advances (an unpaid,
 * failed, expired or cancelled one is not moved by shipments); it moves forward along
 * paid → processing → partially_shipped → shipped → delivered and never back; it becomes
 * cancelled when every sub-order is.
 */
export function advanceParentStatus(current: OrderStatus, subOrderStatuses: readonly SubOrderStatus[]): OrderStatus {
  const currentRank = PAID_PROGRESS.indexOf(current);
  if (currentRank < 0) return current;
  const target = parentStatusOf(subOrderStatuses);
  if (target === 'cancelled') return target;
  return PAID_PROGRESS.indexOf(target) > currentRank ? target : current;
}

const SUB_ORDER_PROGRESS: readonly SubOrderStatus[] = ['pending_payment', 'paid', 'processing', 'awaiting_pickup', 'shipped', 'delivered'];

/**
 * Whether the mirror takes a shipment status vendor reports. A cancelled sub-order is final; a
 * cancel is taken unless the sub-order was delivered; otherwise the status may stay (a re-ship
 * corrects tracking) or move forward, never back (a late event never undoes a newer one).
 */
export function acceptsShipmentStatus(current: SubOrderStatus, next: SubOrderStatus): boolean {
  if (current === 'cancelled') return false;
  if (next === 'cancelled') return current !== 'delivered';
  return SUB_ORDER_PROGRESS.indexOf(next) >= SUB_ORDER_PROGRESS.indexOf(current);
}

/** A sub-order as the points reversal weighs it. */
export interface WeightedSubOrder {
  id: string;
  /** Goods subtotal less the sub-order's discount (what earned its share of the points). */
  paidSubtotal: Prisma.Decimal;
  cancelled: boolean;
}

/**
 * The share of `points` that belongs to `cancellingId` when it is cancelled, by paid subtotal.
 * Shares are cumulative (floor of the cancelled part after, less floor of the cancelled part
 * before), so cancelling every sub-order, in any order, accounts for exactly `points`.
 */
export function cancelledShareOf(points: number, subOrders: readonly WeightedSubOrder[], cancellingId: string): number {
  const cancelling = subOrders.find((s) => s.id === cancellingId);
  if (!cancelling || cancelling.cancelled || points <= 0) return 0;
  const sum = (list: readonly WeightedSubOrder[]) => list.reduce((acc, s) => acc.plus(s.paidSubtotal), new Prisma.Decimal(0));
  const total = sum(subOrders);
  if (total.lte(0)) return 0;
  const before = sum(subOrders.filter((s) => s.cancelled));
  const after = before.plus(cancelling.paidSubtotal);
  const shareOf = (part: Prisma.Decimal) => part.times(points).dividedBy(total).floor().toNumber();
  return shareOf(after) - shareOf(before);
}

/** Points to take back when `cancellingId` is cancelled: its share of the points earned on the order. */
export function pointsToReverse(pointsEarned: number, subOrders: readonly WeightedSubOrder[], cancellingId: string): number {
  return cancelledShareOf(pointsEarned, subOrders, cancellingId);
}

/**
 * Redeemed points to give back when a paid sub-order is cancelled: its share of the points the
 * order redeemed, by paid subtotal like the earned ones (the points were an order-wide discount),
 * so cancelling every sub-order gives all of them back.
 */
export function redeemedPointsToGiveBack(pointsRedeemed: number, subOrders: readonly WeightedSubOrder[], cancellingId: string): number {
  return cancelledShareOf(pointsRedeemed, subOrders, cancellingId);
}

/** An order as expiry sees what it holds. */
export interface HeldOrder {
  id: string;
  customerId: string;
  voucherId: string | null;
  kolCodeId: string | null;
  pointsRedeemed: number;
}

export interface HeldItem {
  productId: string;
  variantId: string | null;
  quantity: number;
}

/** Stock to put back: on the variant when the line had one, else on the product. */
export interface StockRelease {
  kind: 'product' | 'variant';
  id: string;
  quantity: number;
}

export interface Holdings {
  stock: StockRelease[];
  vouchers: { id: string; uses: number }[];
  kolCodes: { id: string; uses: number }[];
  points: { customerId: string; orderId: string; points: number }[];
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Adds up the quantities per product/variant row, in a fixed order (products, then variants, by id). */
export function stockToRelease(items: readonly HeldItem[]): StockRelease[] {
  const totals = new Map<string, StockRelease>();
  for (const item of items) {
    const kind = item.variantId ? 'variant' : 'product';
    const id = item.variantId ?? item.productId;
    const key = `${kind}:${id}`;
    const entry = totals.get(key) ?? { kind, id, quantity: 0 };
    entry.quantity += item.quantity;
    totals.set(key, entry);
  }
  return [...totals.values()].sort((a, b) => (a.kind === b.kind ? byId(a, b) : a.kind === 'product' ? -1 : 1));
}

function countUses(ids: (string | null)[]): { id: string; uses: number }[] {
  const counts = new Map<string, number>();
  for (const id of ids) if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].map(([id, uses]) => ({ id, uses })).sort(byId);
}

/**
 * Everything unpaid orders hold, added up per row and sorted, so that concurrent releases take
 * row locks in the same order (no deadlock): stock, one voucher use and one KOL use per order,
 * the redeemed points per order.
 */
export function holdingsToRelease(orders: readonly HeldOrder[], items: readonly HeldItem[]): Holdings {
  return {
    stock: stockToRelease(items),
    vouchers: countUses(orders.map((o) => o.voucherId)),
    kolCodes: countUses(orders.map((o) => o.kolCodeId)),
    points: orders
      .filter((o) => o.pointsRedeemed > 0)
      .map((o) => ({ customerId: o.customerId, orderId: o.id, points: o.pointsRedeemed }))
      .sort((a, b) => (a.customerId === b.customerId ? (a.orderId < b.orderId ? -1 : 1) : a.customerId < b.customerId ? -1 : 1)),
  };
}

/**
 * Points earned on payment (DESIGN §7): 1 per whole MYR of the paid subtotal, i.e. the goods'
 * subtotal less every discount (voucher, KOL, redeemed points); shipping earns nothing.
 */
export function pointsEarnedFor(subtotal: Prisma.Decimal, discountTotal: Prisma.Decimal): number {
  const paid = subtotal.minus(discountTotal);
  return paid.isNegative() ? 0 : paid.floor().toNumber();
}

const familyNotes = z.object({ familyCartItemIds: z.array(z.uuid()) });

/** The family cart items a family submit recorded in admin_notes (`{"familyCartItemIds":[...]}`); none otherwise. */
export function familyCartItemIdsOf(adminNotes: string | null): string[] {
  if (!adminNotes) return [];
  try {
    const parsed = familyNotes.safeParse(JSON.parse(adminNotes));
    return parsed.success ? parsed.data.familyCartItemIds : [];
  } catch {
    return [];
  }
}
