import type { Allowed, Refusal } from '../members/rules';

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
