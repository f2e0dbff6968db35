import { enqueueEvent } from '@pasar/bus';
import { notifyEmailRequested, type VendorApplicationBody, type VendorApplicationStatus } from '@pasar/contracts';
import { isUniqueViolation } from '@pasar/db';
import type { Refusal } from '@pasar/service-kit';
import { normaliseMsic, normaliseTin } from '@pasar/tax';
import { EVENT_SOURCE, now, type AdminDeps } from '../deps';
import type { VendorApplication } from '../generated/prisma/client';
import { derivedUuid } from './rules';

type Deps = Pick<AdminDeps, 'prisma' | 'clock'>;

export type ApplyResult = { ok: true; application: VendorApplication } | Refusal<'invalid_tin' | 'invalid_msic' | 'application_pending'>;

/**
 * POST /vendor-applications: a signed-in user applies to sell. TIN and MSIC are validated and
 * normalised (packages/tax); the consent is stamped now. One pending application per user (a
 * partial unique index decides a race): a second answers `application_pending`.
 */
export async function applyForVendor(deps: Deps, applicantUserId: string, body: VendorApplicationBody): Promise<ApplyResult> {
  const tin = normaliseTin(body.tin);
  if (!tin.ok) return { ok: false, code: 'invalid_tin', detail: tin.reason };
  const msic = normaliseMsic(body.msic_code);
  if (!msic.ok) return { ok: false, code: 'invalid_msic', detail: msic.reason };
  try {
    const application = await deps.prisma.vendorApplication.create({
      data: {
        applicantUserId,
        email: body.email.trim().toLowerCase(),
        fullName: body.full_name,
        phone: body.phone,
        storeName: body.store_name,
        description: body.description ?? null,
        locationAddress: body.location_address ?? null,
        locationLat: body.location_lat ?? null,
        locationLng: body.location_lng ?? null,
        ssmCertUrl: body.ssm_cert_url ?? null,
        logoUrl: body.logo_url ?? null,
        bannerUrl: body.banner_url ?? null,
        bankName: body.bank_name,
        bankAccountNumber: body.bank_account_number,
        bankAccountName: body.bank_account_name,
        tin: tin.value,
        msicCode: msic.value,
        sstRegNo: body.sst_reg_no ?? null,
        intermediaryConsentAccepted: body.intermediary_consent_accepted,
        intermediaryConsentAt: now(deps),
        intermediaryConsentTosVersion: body.intermediary_consent_tos_version,
      },
    });
    return { ok: true, application };
  } catch (err) {
    if (isUniqueViolation(err)) return { ok: false, code: 'application_pending', detail: 'you already have a pending application' };
    throw err;
  }
}

/** Admin list: optional status filter, newest first, paged. */
export function listApplications(
  { prisma }: Pick<AdminDeps, 'prisma'>,
  query: { status?: VendorApplicationStatus; page: number; limit: number },
): Promise<VendorApplication[]> {
  return prisma.vendorApplication.findMany({
    where: query.status ? { status: query.status } : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: (query.page - 1) * query.limit,
    take: query.limit,
  });
}

export function findApplication({ prisma }: Pick<AdminDeps, 'prisma'>, id: string): Promise<VendorApplication | null> {
  return prisma.vendorApplication.findUnique({ where: { id } });
}

export type ReviewResult = { ok: true; application: VendorApplication } | Refusal<'not_found' | 'not_pending' | 'approval_in_progress' | 'approval_started'>;

/**
 * Reject from pending only, and not while an approval runs or after one began (its account or
 * store exists: approve again to complete it; nothing undoes them). One conditional update decides,
 * so a concurrent approve or reject wins once. Stores the note, stamps reviewed_at, and asks for the
 * rejection e-mail through the outbox in the same transaction; the notifier sends it with retries,
 * so its failure never fails this.
 */
export async function rejectApplication(deps: Deps, id: string, note: string): Promise<ReviewResult> {
  return deps.prisma.$transaction(async (tx) => {
    const reviewedAt = now(deps);
    const { count } = await tx.vendorApplication.updateMany({
      where: { id, status: 'pending', userId: null, storeId: null, OR: [{ approvingUntil: null }, { approvingUntil: { lt: reviewedAt } }] },
      data: { status: 'rejected', rejectionNote: note, reviewedAt },
    });
    const application = await tx.vendorApplication.findUnique({ where: { id } });
    if (!application) return { ok: false, code: 'not_found', detail: 'vendor application not found' };
    if (count === 0) return notRejectable(application, reviewedAt);
    await enqueueEvent(
      tx,
      notifyEmailRequested,
      {
        messageId: derivedUuid(`vendor-application-rejected:${id}`),
        to: application.email,
        template: 'vendor_application_rejected',
        vars: { fullName: application.fullName, storeName: application.storeName, note },
      },
      EVENT_SOURCE,
    );
    return { ok: true, application };
  });
}

function notRejectable(application: VendorApplication, at: Date): Refusal<'not_pending' | 'approval_in_progress' | 'approval_started'> {
  if (application.status !== 'pending') return { ok: false, code: 'not_pending', detail: `the application is ${application.status}` };
  if (application.approvingUntil && application.approvingUntil >= at) {
    return { ok: false, code: 'approval_in_progress', detail: 'an approval of this application is running' };
  }
  return { ok: false, code: 'approval_started', detail: 'an approval began (the vendor account exists); approve again to complete it' };
}
