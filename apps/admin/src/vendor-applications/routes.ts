import {
  rejectVendorApplicationBody,
  uuidParam,
  vendorApplicationBody,
  vendorApplicationsQuery,
  type VendorApplication as VendorApplicationResource,
} from '@pasar/contracts';
import { API_PREFIX, parse, refusalProblems, requireRole, requireUser } from '@pasar/service-kit';
import type { Router } from 'express';
import type { AdminDeps } from '../deps';
import type { VendorApplication } from '../generated/prisma/client';
import { applyForVendor, findApplication, listApplications, rejectApplication } from './applications';
import { approveApplication, resendCredentials, type ApprovalRefusal } from './approve';

const ADMIN_BASE = '/admin/vendor-applications';

/** The HTTP status of each refusal of this feature (STYLE §4: beside the routes). */
const STATUS_OF: Record<string, number> = {
  invalid_tin: 400,
  invalid_msic: 400,
  application_pending: 409,
  not_found: 404,
  not_pending: 409,
  approval_in_progress: 409,
  approval_started: 409,
  not_approved: 409,
  email_taken: 409,
  store_refused: 409,
  credentials_email_failed: 500,
};

const problemOf = refusalProblems(STATUS_OF);

/**
 * POST /vendor-applications (any signed-in user) and the administrator's
 * /admin/vendor-applications list, detail, reject, approve, resend-credentials.
 */
export function vendorApplicationRoutes(router: Router, deps: AdminDeps): void {
  router.post('/vendor-applications', async (req, res) => {
    const caller = requireUser(req);
    const result = await applyForVendor(deps, caller.userId, parse(vendorApplicationBody, req.body));
    if (!result.ok) throw problemOf(result);
    res.status(201).location(`${API_PREFIX}${ADMIN_BASE}/${result.application.id}`).json(toVendorApplication(result.application));
  });

  router.get(ADMIN_BASE, async (req, res) => {
    requireRole(req, 'admin');
    const applications = await listApplications(deps, parse(vendorApplicationsQuery, req.query));
    res.json(applications.map(toVendorApplication));
  });

  router.get(`${ADMIN_BASE}/:id`, async (req, res) => {
    requireRole(req, 'admin');
    const application = await findApplication(deps, parse(uuidParam, req.params).id);
    if (!application) throw problemOf({ code: 'not_found', detail: 'vendor application not found' });
    res.json(toVendorApplication(application));
  });

  router.post(`${ADMIN_BASE}/:id/reject`, async (req, res) => {
    requireRole(req, 'admin');
    const { id } = parse(uuidParam, req.params);
    const result = await rejectApplication(deps, id, parse(rejectVendorApplicationBody, req.body).note);
    if (!result.ok) throw problemOf(result);
    res.json(toVendorApplication(result.application));
  });

  router.post(`${ADMIN_BASE}/:id/approve`, async (req, res) => {
    requireRole(req, 'admin');
    const result = await approveApplication(deps, parse(uuidParam, req.params).id);
    if (!result.ok) throw problemOf(result satisfies ApprovalRefusal);
    res.json(toVendorApplication(result.application));
  });

  router.post(`${ADMIN_BASE}/:id/resend-credentials`, async (req, res) => {
    requireRole(req, 'admin');
    const result = await resendCredentials(deps, parse(uuidParam, req.params).id);
    if (!result.ok) throw problemOf(result);
    res.status(204).end();
  });
}

/** The spec's Vendor application resource (snake_case). */
export function toVendorApplication(a: VendorApplication): VendorApplicationResource {
  return {
    id: a.id,
    email: a.email,
    full_name: a.fullName,
    phone: a.phone,
    store_name: a.storeName,
    description: a.description,
    location_address: a.locationAddress,
    location_lat: a.locationLat?.toFixed(6) ?? null,
    location_lng: a.locationLng?.toFixed(6) ?? null,
    ssm_cert_url: a.ssmCertUrl,
    logo_url: a.logoUrl,
    banner_url: a.bannerUrl,
    bank_name: a.bankName,
    bank_account_number: a.bankAccountNumber,
    bank_account_name: a.bankAccountName,
    status: a.status,
    rejection_note: a.rejectionNote,
    reviewed_at: a.reviewedAt?.toISOString() ?? null,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
    tin: a.tin,
    msic_code: a.msicCode,
    sst_reg_no: a.sstRegNo,
    intermediary_consent_accepted: a.intermediaryConsentAccepted,
    intermediary_consent_at: a.intermediaryConsentAt?.toISOString() ?? null,
    intermediary_consent_tos_version: a.intermediaryConsentTosVersion,
  };
}
