import type { CarrierBookingStatus, SubOrderStatus } from '@pasar/contracts';
import type { Refusal } from '@pasar/service-kit';

/** Admin booking moves a paid or processing shipment to awaiting_pickup (DESIGN §5). */
export function bookable(status: SubOrderStatus): { ok: true } | Refusal<'not_bookable'> {
  return status === 'paid' || status === 'processing'
    ? { ok: true }
    : { ok: false, code: 'not_bookable', detail: `a ${status} shipment cannot be booked (paid or processing only)` };
}

/**
 * Whether POST .../book starts a new attempt: yes without a booking or after `failed`; a booked
 * shipment answers its booking, and one waiting for a retry answers where it stands (the
 * schedule owns it, so no second carrier booking runs beside it).
 */
export function startsNewAttempt(existing: CarrierBookingStatus | null): boolean {
  return existing === null || existing === 'failed';
}

export type FailedAttempt = 'retryable' | 'rejected';
export type NextState = { status: 'pending_retry'; nextAttemptAt: Date } | { status: 'failed' };

/**
 * After a failed attempt (DESIGN §5): a 4xx is failed at once; a 5xx or timeout is retried after
 * waits[n-1], where n attempts have been made, so there is one wait per retry; after the last
 * wait's retry fails too, failed. With the default waits that is 1 + 5 attempts.
 */
export function nextStateAfter(failure: FailedAttempt, attempts: number, waits: readonly number[], at: Date): NextState {
  if (failure === 'rejected') return { status: 'failed' };
  if (attempts < 1 || attempts > waits.length) return { status: 'failed' };
  return { status: 'pending_retry', nextAttemptAt: new Date(at.getTime() + waits[attempts - 1]) };
}

/** How long an attempt holds its claim: the carrier call's timeout plus room to record the outcome. */
export const leaseMs = (carrierTimeoutMs: number): number => carrierTimeoutMs + 30_000;
