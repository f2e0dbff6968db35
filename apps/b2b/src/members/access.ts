import type { B2bRole } from '@pasar/contracts';
import { ProblemError, notFound, requireRole } from '@pasar/service-kit';
import type { Request } from 'express';
import type { Db } from '../deps';
import type { Company, CompanyMember } from '../generated/prisma/client';
import { roleAllows, type Refusal } from './rules';

export interface Membership {
  userId: string;
  member: CompanyMember;
  company: Company;
}

/** 403 with the refusal's code. */
export const forbiddenOf = (refusal: Refusal<string>) => new ProblemError(403, refusal.code, refusal.detail);

/**
 * The signed-in customer's membership of a company (DESIGN §7): 401 anonymous, 403 another role
 * (vendor, admin); 404 when the company does not exist, is not approved, or the caller is not a
 * member of it or was removed (another company is never revealed); 403 `membership_pending` until
 * account setup; with `roles`, 403 `b2b_role_forbidden` for another company role.
 */
export async function requireMember(db: Db, req: Request, companyId: string, roles?: readonly B2bRole[], what = 'do this'): Promise<Membership> {
  const { userId } = requireRole(req, 'customer');
  return memberOf(db, userId, companyId, roles, what);
}

export async function memberOf(db: Db, userId: string, companyId: string, roles?: readonly B2bRole[], what = 'do this'): Promise<Membership> {
  const member = await db.companyMember.findUnique({ where: { companyId_userId: { companyId, userId } }, include: { company: true } });
  if (!member || member.status === 'inactive' || member.company.status !== 'approved') throw notFound('company');
  if (member.status === 'pending') throw new ProblemError(403, 'membership_pending', 'complete account setup first');
  if (roles) {
    const allowed = roleAllows(member.b2bRole, roles, what);
    if (!allowed.ok) throw forbiddenOf(allowed);
  }
  const { company, ...rest } = member;
  return { userId, member: rest, company };
}

/** The caller's active membership in an approved company (a user has at most one current membership), or null. */
export async function activeMembershipOf(db: Db, userId: string): Promise<(CompanyMember & { company: Company }) | null> {
  return db.companyMember.findFirst({
    where: { userId, status: 'active', company: { status: 'approved' } },
    include: { company: true },
    orderBy: [{ joinedAt: 'desc' }, { createdAt: 'desc' }],
  });
}
