import type { OrderStatus } from '@pasar/contracts';

/** How far an order has come; a status change never moves the read model backwards, and a final status stays. */
const RANK: Record<OrderStatus, number> = {
  pending_payment: 0,
  payment_failed: 1,
  paid: 2,
  processing: 3,
  partially_shipped: 4,
  shipped: 5,
  delivered: 6,
  expired: 7,
  cancelled: 7,
};
const FINAL: readonly string[] = ['delivered', 'expired', 'cancelled'];

/** The status the read model keeps: the further one; a final status is never replaced. */
export function laterStatus(current: string | null, next: OrderStatus): string {
  if (current === null) return next;
  if (FINAL.includes(current)) return current;
  const rank = RANK[current as OrderStatus] ?? -1;
  return RANK[next] > rank ? next : current;
}

/** Orders whose money was spent: paid and beyond, not cancelled or expired. */
export const SPENT_STATUSES: readonly OrderStatus[] = ['paid', 'processing', 'partially_shipped', 'shipped', 'delivered'];

/** The UTC month (YYYY-MM) of an instant, and the first instant of that month. */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);
export const startOfMonth = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));

/**
 * Order statuses that end an order without payment: its purchase requests return to approved. (A
 * cancelled order may have been paid first; b2b's own duplicates, cancelled unpaid, never held any.)
 */
const ENDED_UNPAID: readonly string[] = ['expired', 'payment_failed'];
export const orderEndedUnpaid = (status: string): boolean => ENDED_UNPAID.includes(status);

/**
 * Whether a new B2B order may take its purchase requests: all of them found, each held
 * (checkout_pending) by one and the same reservation, and that reservation placed this order.
 */
export function orderHoldsRequests(
  orderId: string,
  wanted: number,
  requests: readonly { status: string; reservationId: string | null }[],
  orderOfReservation: string | null,
): boolean {
  const reservationId = requests[0]?.reservationId ?? null;
  return (
    reservationId !== null &&
    requests.length === wanted &&
    requests.every((r) => r.status === 'checkout_pending' && r.reservationId === reservationId) &&
    orderOfReservation === orderId
  );
}
