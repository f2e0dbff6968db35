import { enqueueEvent } from '@pasar/bus';
import {
  b2bCompanyReviewed,
  notifyEmailRequested,
  type AdminCompany,
  type CompanyDetails,
  type CompanyStatus,
  type ListQuery,
  type RegisterCompanyBody,
  type TaxCompleteness,
  type UpdateCompanyBody,
} from '@pasar/contracts';
import { badRequest, conflict, notFound, ProblemError } from '@pasar/service-kit';
import { EVENT_SOURCE, iso, lockKey, now, uuidFrom, type B2bDeps, type Db } from '../deps';
import type { Company } from '../generated/prisma/client';
import type { Membership } from '../members/access';
import { taxCompletenessOf } from '../members/rules';
import { userNames, type UserNames } from '../users/users';
import { companyTaxIds, oneLineAddress, publicUrl, reviewable } from './rules';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

const NEWEST_FIRST = [{ createdAt: 'desc' }, { id: 'desc' }] as const;
/** A person owns at most one company that is pending or approved, and belongs to at most one company. */
const CURRENT_COMPANY: CompanyStatus[] = ['pending', 'approved'];

/**
 * POST /b2b/companies: the caller's company, pending until an administrator reviews it.
 * 409 `company_exists` when they own a pending or approved one, `already_in_company` when they are
 * a current member of another.
 */
export async function registerCompany({ prisma }: Pick<Deps, 'prisma'>, ownerId: string, body: RegisterCompanyBody): Promise<string> {
  return prisma.$transaction(async (tx) => {
    await lockKey(tx, `b2b-user:${ownerId}`);
    const owned = await tx.company.count({ where: { ownerId, status: { in: CURRENT_COMPANY } } });
    if (owned > 0) throw conflict('company_exists', 'you already own a company that is pending or approved');
    const memberships = await tx.companyMember.count({ where: { userId: ownerId, status: { in: ['pending', 'active'] } } });
    if (memberships > 0) throw conflict('already_in_company', 'you are already a member of a company');
    const company = await tx.company.create({
      data: {
        ownerId,
        name: body.name,
        ssmNumber: body.ssm_number,
        industry: body.industry,
        addressLine1: body.address_line1,
        city: body.city,
        state: body.state,
        postcode: body.postcode,
        contactName: body.contact_name,
        contactPhone: body.contact_phone,
        contactEmail: body.contact_email,
      },
      select: { id: true },
    });
    return company.id;
  });
}

/** PATCH /b2b/companies/{id} by its company_admin: the fields, with the TIN validated and normalised and the MSIC code checked. */
export async function updateCompany({ prisma, clock }: Pick<Deps, 'prisma' | 'clock'>, membership: Membership, body: UpdateCompanyBody): Promise<void> {
  if (body.companyId && body.companyId !== membership.company.id) throw badRequest('company_id_mismatch', 'companyId differs from the path');
  const taxIds = companyTaxIds(body.tin, body.msicCode);
  if (!taxIds.ok) throw badRequest(taxIds.code, taxIds.detail);
  await prisma.company.update({
    where: { id: membership.company.id },
    data: {
      name: body.name,
      addressLine1: body.addressLine1,
      city: body.city,
      state: body.state,
      postcode: body.postcode,
      contactName: body.contactName,
      contactPhone: body.contactPhone,
      contactEmail: body.contactEmail,
      industry: body.industry,
      tin: taxIds.tin,
      msicCode: taxIds.msicCode,
      updatedAt: now({ clock }),
    },
  });
}

export function toCompanyDetails(c: Company): CompanyDetails {
  return {
    id: c.id,
    name: c.name,
    ssmNumber: c.ssmNumber,
    industry: c.industry,
    addressLine1: c.addressLine1,
    city: c.city,
    state: c.state,
    postcode: c.postcode,
    contactName: c.contactName,
    contactPhone: c.contactPhone,
    contactEmail: c.contactEmail,
    tin: c.tin,
    msicCode: c.msicCode,
    status: c.status,
    createdAt: c.createdAt.toISOString(),
  };
}

/**
 * GET /b2b/{companyId}/tax-completeness: for an active member of the approved company, or for
 * its owner whatever its status (pending and rejected companies answer complete=true). 404 else.
 */
export async function taxCompletenessFor(db: Db, userId: string, companyId: string): Promise<TaxCompleteness> {
  const company = await db.company.findUnique({ where: { id: companyId } });
  if (!company) throw notFound('company');
  if (company.ownerId !== userId) {
    const member = await db.companyMember.findUnique({ where: { companyId_userId: { companyId, userId } } });
    if (!member || member.status === 'inactive' || company.status !== 'approved') throw notFound('company');
    if (member.status === 'pending') throw new ProblemError(403, 'membership_pending', 'complete account setup first');
  }
  return taxCompletenessOf(company);
}

// ---------------------------------------------------------------- administrator

function toAdminCompany(c: Company, names: UserNames, storageUrl: string): AdminCompany {
  const owner = names.get(c.ownerId);
  return {
    id: c.id,
    name: c.name,
    ssm_number: c.ssmNumber,
    industry: c.industry,
    address: oneLineAddress(c),
    contact_name: c.contactName,
    contact_phone: c.contactPhone,
    contact_email: c.contactEmail,
    owner_id: c.ownerId,
    status: c.status,
    rejection_reason: c.rejectionReason,
    reviewed_by: c.reviewedBy,
    reviewed_at: iso(c.reviewedAt),
    ssm_cert_path: c.ssmCertPath,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    tin: c.tin,
    msic_code: c.msicCode,
    owner: { id: c.ownerId, full_name: owner?.fullName ?? null, email: owner?.email ?? null },
    ssm_cert_url: publicUrl(storageUrl, c.ssmCertPath),
  };
}

/** GET /admin/b2b/companies (optional status) and /pending: newest first, with the owner, paged. */
export async function listCompanies(deps: Deps, status: CompanyStatus | undefined, page: ListQuery): Promise<AdminCompany[]> {
  const companies = await deps.prisma.company.findMany({
    where: status ? { status } : {},
    orderBy: [...NEWEST_FIRST],
    skip: (page.page - 1) * page.limit,
    take: page.limit,
  });
  const names = await userNames(deps, companies.map((c) => c.ownerId));
  return companies.map((c) => toAdminCompany(c, names, deps.config.PUBLIC_STORAGE_URL));
}

/** GET /admin/b2b/companies/{id}: with owner and ssm_cert_url. */
export async function adminCompanyDetail(deps: Deps, id: string): Promise<AdminCompany> {
  const company = await deps.prisma.company.findUnique({ where: { id } });
  if (!company) throw notFound('company');
  return toAdminCompany(company, await userNames(deps, [company.ownerId]), deps.config.PUBLIC_STORAGE_URL);
}

export type Review = { approved: true } | { approved: false; reason: string };

/**
 * POST /admin/b2b/companies/{id}/approve | reject: only from pending (409 `not_pending`), stamps
 * reviewed_by/at; approval makes the owner (or reactivates them as) an active company_admin. In
 * the same transaction: `b2b.company.reviewed` and the owner's company_reviewed e-mail (message id
 * derived from the company, so it is sent once).
 */
export async function reviewCompany(deps: Deps, adminId: string, id: string, review: Review): Promise<void> {
  const found = await deps.prisma.company.findUnique({ where: { id } });
  if (!found) throw notFound('company');
  const owner = (await userNames(deps, [found.ownerId])).get(found.ownerId) ?? { fullName: found.contactName, email: found.contactEmail };
  const reviewedAt = now(deps);
  await deps.prisma.$transaction(async (tx) => {
    await lockKey(tx, `company:${id}`);
    const company = await tx.company.findUniqueOrThrow({ where: { id } });
    const allowed = reviewable(company.status);
    if (!allowed.ok) throw conflict(allowed.code, allowed.detail);
    await tx.company.update({
      where: { id },
      data: review.approved
        ? { status: 'approved', reviewedBy: adminId, reviewedAt, rejectionReason: null, updatedAt: reviewedAt }
        : { status: 'rejected', reviewedBy: adminId, reviewedAt, rejectionReason: review.reason, updatedAt: reviewedAt },
    });
    if (review.approved) {
      await tx.companyMember.upsert({
        where: { companyId_userId: { companyId: id, userId: company.ownerId } },
        create: { companyId: id, userId: company.ownerId, b2bRole: 'company_admin', status: 'active', joinedAt: reviewedAt },
        update: { b2bRole: 'company_admin', status: 'active', joinedAt: reviewedAt },
      });
    }
    const reason = review.approved ? null : review.reason;
    await enqueueEvent(
      tx,
      b2bCompanyReviewed,
      {
        companyId: id,
        companyName: company.name,
        ownerId: company.ownerId,
        ownerEmail: owner.email,
        ownerName: owner.fullName,
        approved: review.approved,
        reason,
        reviewedBy: adminId,
        reviewedAt: reviewedAt.toISOString(),
      },
      EVENT_SOURCE,
    );
    await enqueueEvent(
      tx,
      notifyEmailRequested,
      {
        messageId: uuidFrom(`company-reviewed:${id}`),
        to: owner.email,
        template: 'company_reviewed',
        vars: { fullName: owner.fullName, companyName: company.name, approved: review.approved, reason },
      },
      EVENT_SOURCE,
    );
  });
}
