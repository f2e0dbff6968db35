import type { B2bRole } from '@pasar/contracts';
import type { MembershipStatus } from '../generated/prisma/client';
import { INVITERS, type Allowed, type Refusal } from '../members/rules';

type MemberState = { companyId: string; status: 'pending' | 'active' | 'inactive' };

/**
 * Whether a person can be invited into `companyId`, given their memberships: not while active in
 * it (`already_member`), nor while pending or active in another company (`already_in_company`).
 * A pending invite of the same company may be sent again (a new temporary password).
 */
export function invitable(companyId: string, memberships: readonly MemberState[]): Allowed | Refusal<'already_member' | 'already_in_company'> {
  const current = memberships.filter((m) => m.status !== 'inactive');
  if (current.some((m) => m.companyId === companyId && m.status === 'active')) {
    return { ok: false, code: 'already_member', detail: 'this person is already an active member of the company' };
  }
  if (current.some((m) => m.companyId !== companyId)) {
    return { ok: false, code: 'already_in_company', detail: 'this person belongs to another company' };
  }
  return { ok: true };
}

/** The identity idempotency key of an invite: one account per company and e-mail, whatever the retries. */
export const inviteIdempotencyKey = (companyId: string, email: string) => `b2b-invite:${companyId}:${email.toLowerCase()}`;

/** The account-setup link of the app at `appUrl`. */
export const setupUrl = (appUrl: string) => new URL('/account/setup', appUrl).toString();

/** The invitations page of the app at `appUrl` (an existing account accepts or declines there). */
export const invitationsUrl = (appUrl: string) => new URL('/b2b/invitations', appUrl).toString();

/** The window B2B_INVITES_PER_DAY counts over. */
export const INVITE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a company that sent `sentInWindow` invites in the last 24 hours may send another; when
 * not, after how many seconds the oldest of them leaves the window (Retry-After).
 */
export function inviteAllowance(sentInWindow: { count: number; oldest: Date | null }, limit: number, now: Date): { ok: true } | { ok: false; retryAfterS: number } {
  if (sentInWindow.count < limit) return { ok: true };
  const freesAt = (sentInWindow.oldest ?? now).getTime() + INVITE_WINDOW_MS;
  return { ok: false, retryAfterS: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
}

/**
 * Whether `caller` may end `target`'s membership: their own (leaving) or, as company_admin,
 * anyone's (`b2b_role_forbidden` otherwise); never the company's last active company_admin
 * (`last_company_admin`: the company would have nobody to run it).
 */
export function mayRemoveMember(
  caller: { userId: string; role: B2bRole },
  target: { userId: string; b2bRole: B2bRole; status: 'pending' | 'active' | 'inactive' },
  activeAdmins: number,
): Allowed | Refusal<'b2b_role_forbidden' | 'last_company_admin'> {
  if (target.userId !== caller.userId && !INVITERS.includes(caller.role)) {
    return { ok: false, code: 'b2b_role_forbidden', detail: 'only a company_admin may remove another member' };
  }
  if (target.status === 'active' && INVITERS.includes(target.b2bRole) && activeAdmins <= 1) {
    return { ok: false, code: 'last_company_admin', detail: 'the last company_admin cannot leave or be removed' };
  }
  return { ok: true };
}

/**
 * The memberships the team list shows: active ones only. An invite writes a pending membership
 * only for some e-mails (a customer free to join), none for a vendor, an administrator or a
 * person active elsewhere; listing pending rows would tell the inviter which kind of account an
 * e-mail belongs to (issue 24). The cost: an inviter neither sees nor withdraws a pending invite;
 * it ends when the person declines it, or the inviter removes them once they joined.
 */
export const LISTED_MEMBER_STATUSES: readonly MembershipStatus[] = ['active'];
