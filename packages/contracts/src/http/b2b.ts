import { z } from 'zod';
import { orderStatusSchema } from '../commerce';
import { money } from './common';
import { orderDetail } from './orders';

// B2B (customer side and /admin/b2b): SPEC "B2B (customer side)", the first five "Administrator"
// rows, resources B2B purchase request / team member / order summary / monthly spend / company,
// and DESIGN §7 for the shapes the spec leaves open. Field case as the spec shows per endpoint.

/** No NUL characters: PostgreSQL text cannot hold them, so they are refused as bad input (400), never a 500. */
const noNul = (value: string) => !value.includes('\u0000');
const NUL_MESSAGE = 'must not contain NUL characters';
const text = (max: number) => z.string().trim().min(1).max(max).refine(noNul, NUL_MESSAGE);
const email = z.string().trim().toLowerCase().pipe(z.email().max(254));
const timestamp = z.iso.datetime();

export const companyStatusSchema = z.enum(['pending', 'approved', 'rejected']);
export type CompanyStatus = z.infer<typeof companyStatusSchema>;
export const b2bRoleSchema = z.enum(['company_admin', 'approver', 'finance', 'staff']);
export type B2bRole = z.infer<typeof b2bRoleSchema>;
export const membershipStatusSchema = z.enum(['pending', 'active', 'inactive']);
export const purchaseRequestStatusSchema = z.enum(['pending', 'approved', 'rejected', 'checkout_pending', 'paid', 'cancelled']);
export type PurchaseRequestStatus = z.infer<typeof purchaseRequestStatusSchema>;

/** At most this many units in one purchase request. */
export const MAX_REQUEST_QUANTITY = 9999;
/** At most this many purchase requests in one B2B submit. */
export const MAX_B2B_SUBMIT_REQUESTS = 50;

// ---------------------------------------------------------------- requests

/** POST /b2b/companies (snake_case, as the spec shows it). */
export const registerCompanyBody = z
  .object({
    name: text(200),
    ssm_number: text(40),
    industry: text(100),
    address_line1: text(200),
    city: text(100),
    state: text(100),
    postcode: text(20),
    contact_name: text(200),
    contact_phone: text(40),
    contact_email: email,
  })
  .strict()
  .meta({ id: 'RegisterCompanyRequest' });
export type RegisterCompanyBody = z.infer<typeof registerCompanyBody>;

/** PATCH /b2b/companies/{id} (camelCase, as the spec shows it); TIN and MSIC required. */
export const updateCompanyBody = z
  .object({
    companyId: z.uuid().optional().meta({ description: 'When given, must equal the path id.' }),
    name: text(200),
    addressLine1: text(200),
    city: text(100),
    state: text(100),
    postcode: text(20),
    contactName: text(200),
    contactPhone: text(40),
    contactEmail: email,
    industry: text(100),
    tin: text(40).meta({ description: 'Validated against the TIN pattern and normalised.' }),
    msicCode: text(10).meta({ description: 'Five digits.' }),
  })
  .strict()
  .meta({ id: 'UpdateCompanyRequest' });
export type UpdateCompanyBody = z.infer<typeof updateCompanyBody>;

/** POST /admin/b2b/companies/{id}/reject */
export const rejectCompanyBody = z.object({ reason: text(2000) }).strict().meta({ id: 'RejectCompanyRequest' });

/** POST /b2b/{companyId}/team (DESIGN §7 invite). */
export const inviteTeamMemberBody = z
  .object({ email, fullName: text(200), b2bRole: b2bRoleSchema })
  .strict()
  .meta({ id: 'InviteTeamMemberRequest' });
export type InviteTeamMemberBody = z.infer<typeof inviteTeamMemberBody>;

/** POST /b2b/purchase-requests */
export const createPurchaseRequestBody = z
  .object({
    productId: z.uuid(),
    variantId: z.uuid().nullish().meta({ description: 'Required when the product is sold by variant.' }),
    quantity: z.number().int().min(1).max(MAX_REQUEST_QUANTITY),
    note: z.string().trim().max(2000).refine(noNul, NUL_MESSAGE).nullish(),
  })
  .strict()
  .meta({ id: 'CreatePurchaseRequestRequest' });
export type CreatePurchaseRequestBody = z.infer<typeof createPurchaseRequestBody>;

/** POST /b2b/purchase-requests/{id}/reject */
export const rejectPurchaseRequestBody = z.object({ note: text(2000) }).strict().meta({ id: 'RejectPurchaseRequestRequest' });

/** POST /checkout/b2b/submit (DESIGN §7): approved requests of the caller's company; the company address when no addressId. */
export const b2bSubmitBody = z
  .object({
    purchaseRequestIds: z.array(z.uuid()).min(1).max(MAX_B2B_SUBMIT_REQUESTS),
    addressId: z.uuid().nullish().meta({ description: "One of the caller's addresses; absent: the company address." }),
  })
  .strict()
  .meta({ id: 'B2bSubmitRequest' });
export type B2bSubmitBody = z.infer<typeof b2bSubmitBody>;

export const companyIdParam = z.object({ companyId: z.uuid() });

export const adminCompaniesQuery = z.object({
  status: companyStatusSchema.optional(),
  page: z.coerce.number().int().min(1).max(10000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const purchaseRequestsQuery = z.object({
  status: purchaseRequestStatusSchema.optional(),
  requesterId: z.uuid().optional(),
  page: z.coerce.number().int().min(1).max(10000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const b2bOrdersQuery = z.object({
  status: orderStatusSchema.optional(),
  page: z.coerce.number().int().min(1).max(10000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** GET /b2b/{companyId}/recent-requests: limit default 10, 1..50 (spec Limits). */
export const recentRequestsQuery = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });

// ---------------------------------------------------------------- responses

const companyOwner = z.object({ id: z.uuid(), full_name: z.string().nullable(), email: z.string().nullable() });

/** B2B company (administrator view). */
export const adminCompany = z
  .object({
    id: z.uuid(),
    name: z.string(),
    ssm_number: z.string(),
    industry: z.string(),
    address: z.string(),
    contact_name: z.string(),
    contact_phone: z.string(),
    contact_email: z.string(),
    owner_id: z.uuid(),
    status: companyStatusSchema,
    rejection_reason: z.string().nullable(),
    reviewed_by: z.uuid().nullable(),
    reviewed_at: timestamp.nullable(),
    ssm_cert_path: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    tin: z.string().nullable(),
    msic_code: z.string().nullable(),
    owner: companyOwner,
    ssm_cert_url: z.string().nullable(),
  })
  .meta({ id: 'AdminB2bCompany' });
export type AdminCompany = z.infer<typeof adminCompany>;

export const teamMember = z
  .object({
    id: z.uuid(),
    userId: z.uuid(),
    fullName: z.string().nullable(),
    email: z.string().nullable(),
    b2bRole: b2bRoleSchema,
    status: membershipStatusSchema,
    joinedAt: timestamp.nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'B2bTeamMember' });
export type TeamMember = z.infer<typeof teamMember>;

export const b2bContext = z
  .object({
    companyId: z.uuid(),
    companyName: z.string(),
    companyStatus: companyStatusSchema,
    memberId: z.uuid(),
    role: b2bRoleSchema,
    memberStatus: membershipStatusSchema,
    mustChangePassword: z.boolean(),
    taxComplete: z.boolean(),
  })
  .nullable()
  .meta({ id: 'B2bContext' });
export type B2bContext = z.infer<typeof b2bContext>;

/** Purchase request, list form. */
export const purchaseRequestListItem = z
  .object({
    id: z.uuid(),
    status: purchaseRequestStatusSchema,
    quantity: z.number().int(),
    unit_price: money,
    note: z.string().nullable(),
    review_note: z.string().nullable(),
    created_at: timestamp,
    reviewed_at: timestamp.nullable(),
    order_id: z.uuid().nullable(),
    product_name: z.string(),
    product_image: z.string().nullable(),
    variant_name: z.string().nullable(),
    requester_name: z.string().nullable(),
    requester_email: z.string().nullable(),
    reviewer_name: z.string().nullable(),
    reviewer_email: z.string().nullable(),
  })
  .meta({ id: 'B2bPurchaseRequest' });
export type PurchaseRequestListItem = z.infer<typeof purchaseRequestListItem>;

/** GET /b2b/purchase-requests/{id}: the list form plus productId, variantId (DESIGN §7). */
export const purchaseRequestDetail = purchaseRequestListItem
  .extend({ productId: z.uuid(), variantId: z.uuid().nullable() })
  .meta({ id: 'B2bPurchaseRequestDetail' });
export type PurchaseRequestDetail = z.infer<typeof purchaseRequestDetail>;

export const procurementHistoryItem = z
  .object({
    id: z.uuid(),
    status: purchaseRequestStatusSchema,
    quantity: z.number().int(),
    unit_price: money,
    product_name: z.string(),
    product_image: z.string().nullable(),
    variant_name: z.string().nullable(),
    requester_name: z.string().nullable(),
    order_id: z.uuid().nullable(),
    updated_at: timestamp,
    created_at: timestamp,
  })
  .meta({ id: 'B2bProcurementHistoryItem' });
export type ProcurementHistoryItem = z.infer<typeof procurementHistoryItem>;

export const recentRequest = z
  .object({
    id: z.uuid(),
    product_name: z.string(),
    quantity: z.number().int(),
    requester_name: z.string().nullable(),
    status: purchaseRequestStatusSchema,
    created_at: timestamp,
  })
  .meta({ id: 'B2bRecentRequest' });
export type RecentRequest = z.infer<typeof recentRequest>;

export const approvedForCheckoutItem = z
  .object({
    id: z.uuid(),
    quantity: z.number().int(),
    unit_price: money,
    product_id: z.uuid(),
    variant_id: z.uuid().nullable(),
    product_name: z.string(),
    product_image: z.string().nullable(),
    variant_name: z.string().nullable(),
    store_id: z.uuid(),
    store_name: z.string().nullable(),
    weight_kg: z.number().nullable(),
    requester_name: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'B2bApprovedForCheckoutItem' });
export type ApprovedForCheckoutItem = z.infer<typeof approvedForCheckoutItem>;

export const b2bOrderSummary = z
  .object({
    id: z.uuid(),
    shortId: z.string(),
    status: z.string(),
    totalAmount: money,
    subOrderCount: z.number().int(),
    requestedBy: z.string().nullable().meta({ description: 'Names of the requesters of its purchase requests, comma separated.' }),
    createdAt: timestamp,
  })
  .meta({ id: 'B2bOrderSummary' });
export type B2bOrderSummary = z.infer<typeof b2bOrderSummary>;

export const monthlySpendEntry = z
  .object({ month: z.string().regex(/^\d{4}-\d{2}$/), total_spend: money })
  .meta({ id: 'B2bMonthlySpendEntry' });
export type MonthlySpendEntry = z.infer<typeof monthlySpendEntry>;

export const dashboardStats = z
  .object({
    role: b2bRoleSchema,
    scope: z.enum(['own', 'company']),
    pendingCount: z.number().int(),
    approvedCount: z.number().int().optional(),
    rejectedCount: z.number().int().optional(),
    paidCount: z.number().int().optional(),
  })
  .meta({ id: 'B2bDashboardStats' });
export type DashboardStats = z.infer<typeof dashboardStats>;

export const financeStats = z
  .object({
    totalSpendThisMonth: money,
    pendingPayments: z.number().int().meta({ description: 'Approved requests not yet checked out.' }),
    approvedThisMonth: z.number().int(),
    teamSize: z.number().int(),
  })
  .meta({ id: 'B2bFinanceStats' });
export type FinanceStats = z.infer<typeof financeStats>;

export const companyDetails = z
  .object({
    id: z.uuid(),
    name: z.string(),
    ssmNumber: z.string(),
    industry: z.string(),
    addressLine1: z.string(),
    city: z.string(),
    state: z.string(),
    postcode: z.string(),
    contactName: z.string(),
    contactPhone: z.string(),
    contactEmail: z.string(),
    tin: z.string().nullable(),
    msicCode: z.string().nullable(),
    status: companyStatusSchema,
    createdAt: timestamp,
  })
  .meta({ id: 'B2bCompanyDetails' });
export type CompanyDetails = z.infer<typeof companyDetails>;

export const taxCompleteness = z
  .object({ complete: z.boolean(), missingTin: z.boolean(), missingMsic: z.boolean() })
  .meta({ id: 'B2bTaxCompleteness' });
export type TaxCompleteness = z.infer<typeof taxCompleteness>;

export const purchaseRequestMeta = z.object({
  id: z.uuid(),
  requesterName: z.string().nullable(),
  productName: z.string(),
  quantity: z.number().int(),
  unitPrice: money,
  status: purchaseRequestStatusSchema,
});

/** GET /b2b/orders/{id}: the customer order detail plus purchaseRequestMeta, or null. */
export const b2bOrderDetail = orderDetail
  .extend({ purchaseRequestMeta: z.array(purchaseRequestMeta) })
  .nullable()
  .meta({ id: 'B2bOrderDetail' });
export type B2bOrderDetail = z.infer<typeof b2bOrderDetail>;
