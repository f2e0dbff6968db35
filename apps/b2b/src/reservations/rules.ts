import type { B2bRole, OrderStatus, PurchaseRequestStatus } from '@pasar/contracts';
import { Prisma } from '../generated/prisma/client';
import { BUYERS, type Refusal } from '../members/rules';

export interface HeldRow {
  id: string;
  companyId: string;
  status: PurchaseRequestStatus;
  reservationId: string | null;
}

export type ReservationPlan =
  | { ok: true; action: 'reserve' | 'repeat' }
  | Refusal<'not_found' | 'forbidden' | 'not_approved'>;

/**
 * What a reserve_requests call does with the requests it found (DESIGN §6): every id must exist in
 * the caller's company (`not_found`: existence elsewhere is not revealed), the caller must be a
 * company_admin or finance member (`forbidden`), and every request approved (`not_approved`). A
 * repeat of a reservation (all rows already held or paid under its id) answers it again.
 */
export function planReservation(
  wanted: readonly string[],
  rows: readonly HeldRow[],
  caller: { companyId: string; role: B2bRole } | null,
  reservationId: string,
): ReservationPlan {
  const ids = new Set(wanted);
  if (!caller || rows.length !== ids.size || rows.some((r) => r.companyId !== caller.companyId)) {
    return { ok: false, code: 'not_found', detail: 'a purchase request is not in your company' };
  }
  if (!BUYERS.includes(caller.role)) return { ok: false, code: 'forbidden', detail: `a ${caller.role} cannot check out` };
  if (rows.every((r) => r.reservationId === reservationId && (r.status === 'checkout_pending' || r.status === 'paid'))) {
    return { ok: true, action: 'repeat' };
  }
  const unavailable = rows.filter((r) => r.status !== 'approved');
  if (unavailable.length > 0) {
    return { ok: false, code: 'not_approved', detail: `not approved (or held by another checkout): ${unavailable.map((r) => r.id).join(', ')}` };
  }
  return { ok: true, action: 'reserve' };
}

/** A reservation made before this instant is expired (the sweep releases it). */
export const reservationCutoff = (now: Date, ttlMs: number): Date => new Date(now.getTime() - ttlMs);

export const reservationExpired = (reservedAt: Date, now: Date, ttlMs: number): boolean => reservedAt <= reservationCutoff(now, ttlMs);

/** Order statuses in which a reservation's order ended without being paid: its requests may be released. */
const ENDED_UNPAID: readonly OrderStatus[] = ['cancelled', 'expired', 'payment_failed'];

/** Whether an expired reservation may be released, given the status of the order it placed (null: none). */
export const reservationReleasable = (orderStatus: OrderStatus | null): boolean => orderStatus === null || ENDED_UNPAID.includes(orderStatus);

/** Where a released request goes: back to `approved`, or to `pending` at the catalog's price now. */
export type ReleaseTarget = { id: string; status: 'approved' } | { id: string; status: 'pending'; unitPrice: string };

/**
 * What a release does with each request it frees (DESIGN §6): a request checkout repriced (its
 * catalog price is no longer the approved one: the submit answered 409 `price_changed`) goes back
 * to `pending` at the new price, so its approver sees and approves what the vendor now asks;
 * every other one (and one "repriced" at the very price it was approved at) to `approved`.
 * Prices compare as amounts ("10.5" is "10.50").
 */
export function releaseTargets(rows: readonly { id: string; unitPrice: string }[], repriced: readonly { purchaseRequestId: string; unitPrice: string }[]): ReleaseTarget[] {
  const priceNow = new Map(repriced.map((r) => [r.purchaseRequestId, r.unitPrice]));
  return rows.map((row) => {
    const current = priceNow.get(row.id);
    return current !== undefined && !new Prisma.Decimal(current).equals(row.unitPrice)
      ? { id: row.id, status: 'pending', unitPrice: new Prisma.Decimal(current).toFixed(2) }
      : { id: row.id, status: 'approved' };
  });
}
