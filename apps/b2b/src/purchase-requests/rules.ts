import type { B2bRole, PurchaseRequestStatus } from '@pasar/contracts';
import { APPROVERS, type Allowed, type Refusal } from '../members/rules';

/**
 * Approve or reject (DESIGN §5, §7): by an approver or company_admin, never by the request's own
 * requester, and only while it is pending.
 */
export function reviewable(
  request: { status: PurchaseRequestStatus; requesterId: string },
  reviewer: { userId: string; role: B2bRole },
): Allowed | Refusal<'b2b_role_forbidden' | 'own_request' | 'not_pending'> {
  if (!APPROVERS.includes(reviewer.role)) return { ok: false, code: 'b2b_role_forbidden', detail: `a ${reviewer.role} cannot review requests` };
  if (request.requesterId === reviewer.userId) return { ok: false, code: 'own_request', detail: 'a requester cannot review their own request' };
  if (request.status !== 'pending') return { ok: false, code: 'not_pending', detail: `the request is ${request.status}` };
  return { ok: true };
}

/** Cancel: by its requester, while pending or approved. */
export function cancellable(
  request: { status: PurchaseRequestStatus; requesterId: string },
  userId: string,
): Allowed | Refusal<'not_requester' | 'not_cancellable'> {
  if (request.requesterId !== userId) return { ok: false, code: 'not_requester', detail: 'only the requester can cancel a request' };
  if (request.status !== 'pending' && request.status !== 'approved') {
    return { ok: false, code: 'not_cancellable', detail: `a ${request.status} request cannot be cancelled` };
  }
  return { ok: true };
}

/** Requests whose story is over: the procurement history. */
export const FINISHED: readonly PurchaseRequestStatus[] = ['paid', 'rejected', 'cancelled'];
