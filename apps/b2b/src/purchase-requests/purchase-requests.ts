import { callRpc, RpcFailedError } from '@pasar/bus';
import {
  checkoutProductSnapshot,
  type ApprovedForCheckoutItem,
  type CreatePurchaseRequestBody,
  type DashboardStats,
  type ListQuery,
  type ProcurementHistoryItem,
  type PurchaseRequestDetail,
  type PurchaseRequestListItem,
  type PurchaseRequestStatus,
  type RecentRequest,
} from '@pasar/contracts';
import { badRequest, conflict, notFound, ProblemError } from '@pasar/service-kit';
import { iso, now, type B2bDeps } from '../deps';
import type { PurchaseRequest } from '../generated/prisma/client';
import { activeMembershipOf, forbiddenOf, memberOf, type Membership } from '../members/access';
import { requestScopeOf, taxGate } from '../members/rules';
import { userNames, type UserNames } from '../users/users';
import { cancellable, FINISHED, reviewable } from './rules';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

const NEWEST_FIRST = [{ createdAt: 'desc' }, { id: 'desc' }] as const;
const pageOf = (page: ListQuery) => ({ skip: (page.page - 1) * page.limit, take: page.limit });

/**
 * POST /b2b/purchase-requests by an active member of an approved company (404 none, 403
 * `membership_pending`): tax gate (400 `tax_incomplete`), then the price snapshot from checkout
 * (variant override over base price; 404 unknown product, 400 `variant_required`,
 * `product_unavailable` when not live). Starts pending.
 */
export async function createPurchaseRequest(deps: Deps, userId: string, body: CreatePurchaseRequestBody, requestId?: string): Promise<string> {
  const active = await activeMembershipOf(deps.prisma, userId);
  if (!active) {
    const pending = await deps.prisma.companyMember.count({ where: { userId, status: 'pending', company: { status: 'approved' } } });
    if (pending > 0) throw new ProblemError(403, 'membership_pending', 'complete account setup first');
    throw notFound('company membership');
  }
  const gate = taxGate(active.company);
  if (!gate.ok) throw badRequest(gate.code, gate.detail);
  const snapshot = await productSnapshot(deps, body, requestId);
  const created = await deps.prisma.purchaseRequest.create({
    data: {
      companyId: active.companyId,
      requesterId: userId,
      productId: snapshot.productId,
      variantId: snapshot.variantId,
      productName: snapshot.name,
      productImage: snapshot.imagePath,
      variantName: snapshot.variantName,
      storeId: snapshot.storeId,
      storeName: snapshot.storeName,
      weightKg: snapshot.weightKg,
      quantity: body.quantity,
      unitPrice: snapshot.unitPrice,
      note: body.note || null,
      createdAt: now(deps),
      updatedAt: now(deps),
    },
    select: { id: true },
  });
  return created.id;
}

async function productSnapshot(deps: Deps, body: CreatePurchaseRequestBody, requestId?: string) {
  try {
    const snapshot = await callRpc(deps.bus, checkoutProductSnapshot, { productId: body.productId, variantId: body.variantId ?? null }, { requestId });
    if (snapshot.status !== 'live') throw badRequest('product_unavailable', `${snapshot.name} is not on sale`);
    return snapshot;
  } catch (err) {
    if (err instanceof RpcFailedError && err.code === 'not_found') throw notFound('product');
    if (err instanceof RpcFailedError && err.code === 'variant_required') throw badRequest('variant_required', 'this product is sold by variant: give variantId');
    throw err;
  }
}

function toListItem(r: PurchaseRequest, names: UserNames): PurchaseRequestListItem {
  const requester = names.get(r.requesterId);
  const reviewer = r.reviewerId ? names.get(r.reviewerId) : undefined;
  return {
    id: r.id,
    status: r.status,
    quantity: r.quantity,
    unit_price: r.unitPrice.toFixed(2),
    note: r.note,
    review_note: r.reviewNote,
    created_at: r.createdAt.toISOString(),
    reviewed_at: iso(r.reviewedAt),
    order_id: r.orderId,
    product_name: r.productName,
    product_image: r.productImage,
    variant_name: r.variantName,
    requester_name: requester?.fullName ?? null,
    requester_email: requester?.email ?? null,
    reviewer_name: reviewer?.fullName ?? null,
    reviewer_email: reviewer?.email ?? null,
  };
}

const namesOf = (deps: Deps, requests: readonly PurchaseRequest[]) => userNames(deps, requests.flatMap((r) => [r.requesterId, r.reviewerId]));

/** GET /b2b/{companyId}/purchase-requests: newest first; status and requesterId filters (the API trusts the filter, spec). */
export async function listPurchaseRequests(
  deps: Deps,
  { company }: Membership,
  query: ListQuery & { status?: PurchaseRequestStatus; requesterId?: string },
): Promise<PurchaseRequestListItem[]> {
  const requests = await deps.prisma.purchaseRequest.findMany({
    where: { companyId: company.id, ...(query.status ? { status: query.status } : {}), ...(query.requesterId ? { requesterId: query.requesterId } : {}) },
    orderBy: [...NEWEST_FIRST],
    ...pageOf(query),
  });
  const names = await namesOf(deps, requests);
  return requests.map((r) => toListItem(r, names));
}

/** A request of the caller's company with the caller's membership; 404 when it is not in a company the caller is an active member of. */
async function requestOfMember(deps: Deps, userId: string, id: string): Promise<{ request: PurchaseRequest; membership: Membership }> {
  const request = await deps.prisma.purchaseRequest.findUnique({ where: { id } });
  if (!request) throw notFound('purchase request');
  const membership = await memberOf(deps.prisma, userId, request.companyId).catch((err: unknown) => {
    if (err instanceof ProblemError && err.status === 404) throw notFound('purchase request');
    throw err;
  });
  return { request, membership };
}

/** GET /b2b/purchase-requests/{id}: the list form plus productId, variantId; 404 outside the caller's company. */
export async function purchaseRequestDetail(deps: Deps, userId: string, id: string): Promise<PurchaseRequestDetail> {
  const { request } = await requestOfMember(deps, userId, id);
  return { ...toListItem(request, await namesOf(deps, [request])), productId: request.productId, variantId: request.variantId };
}

export type RequestReview = { approve: true } | { approve: false; note: string };

/**
 * POST /b2b/purchase-requests/{id}/approve | reject: 404 outside the caller's company; 403
 * `b2b_role_forbidden` / `own_request`; 409 `not_pending` (also when a concurrent review won:
 * the update is conditional on pending).
 */
export async function reviewPurchaseRequest(deps: Deps, userId: string, id: string, review: RequestReview): Promise<void> {
  const { request, membership } = await requestOfMember(deps, userId, id);
  const allowed = reviewable(request, { userId, role: membership.member.b2bRole });
  if (!allowed.ok) {
    if (allowed.code === 'not_pending') throw conflict(allowed.code, allowed.detail);
    throw forbiddenOf(allowed);
  }
  const reviewedAt = now(deps);
  const updated = await deps.prisma.purchaseRequest.updateMany({
    where: { id, status: 'pending' },
    data: review.approve
      ? { status: 'approved', reviewerId: userId, reviewedAt, updatedAt: reviewedAt }
      : { status: 'rejected', reviewerId: userId, reviewedAt, reviewNote: review.note, updatedAt: reviewedAt },
  });
  if (updated.count !== 1) throw conflict('not_pending', 'the request was reviewed meanwhile');
}

/** POST /b2b/purchase-requests/{id}/cancel by its requester while pending or approved (403 `not_requester`, 409 `not_cancellable`). */
export async function cancelPurchaseRequest(deps: Deps, userId: string, id: string): Promise<void> {
  const { request } = await requestOfMember(deps, userId, id);
  const allowed = cancellable(request, userId);
  if (!allowed.ok) {
    if (allowed.code === 'not_cancellable') throw conflict(allowed.code, allowed.detail);
    throw forbiddenOf(allowed);
  }
  const updated = await deps.prisma.purchaseRequest.updateMany({
    where: { id, status: { in: ['pending', 'approved'] } },
    data: { status: 'cancelled', updatedAt: now(deps) },
  });
  if (updated.count !== 1) throw conflict('not_cancellable', 'the request changed meanwhile');
}

/** GET /b2b/{companyId}/recent-requests: newest first, `limit` of them; staff see their own. */
export async function recentRequests(deps: Deps, { company, member, userId }: Membership, limit: number): Promise<RecentRequest[]> {
  const own = requestScopeOf(member.b2bRole) === 'own';
  const requests = await deps.prisma.purchaseRequest.findMany({
    where: { companyId: company.id, ...(own ? { requesterId: userId } : {}) },
    orderBy: [...NEWEST_FIRST],
    take: limit,
  });
  const names = await namesOf(deps, requests);
  return requests.map((r) => ({
    id: r.id,
    product_name: r.productName,
    quantity: r.quantity,
    requester_name: names.get(r.requesterId)?.fullName ?? null,
    status: r.status,
    created_at: r.createdAt.toISOString(),
  }));
}

/** GET /b2b/{companyId}/approved-for-checkout: approved requests with store and weight, newest first, paged. */
export async function approvedForCheckout(deps: Deps, { company }: Membership, page: ListQuery): Promise<ApprovedForCheckoutItem[]> {
  const requests = await deps.prisma.purchaseRequest.findMany({
    where: { companyId: company.id, status: 'approved' },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    ...pageOf(page),
  });
  const names = await namesOf(deps, requests);
  return requests.map((r) => ({
    id: r.id,
    quantity: r.quantity,
    unit_price: r.unitPrice.toFixed(2),
    product_id: r.productId,
    variant_id: r.variantId,
    product_name: r.productName,
    product_image: r.productImage,
    variant_name: r.variantName,
    store_id: r.storeId,
    store_name: r.storeName,
    weight_kg: r.weightKg === null ? null : r.weightKg.toNumber(),
    requester_name: names.get(r.requesterId)?.fullName ?? null,
    created_at: r.createdAt.toISOString(),
  }));
}

/** GET /b2b/{companyId}/procurement-history: paid, rejected and cancelled requests, newest change first. */
export async function procurementHistory(deps: Deps, { company }: Membership, page: ListQuery): Promise<ProcurementHistoryItem[]> {
  const requests = await deps.prisma.purchaseRequest.findMany({
    where: { companyId: company.id, status: { in: [...FINISHED] } },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    ...pageOf(page),
  });
  const names = await namesOf(deps, requests);
  return requests.map((r) => ({
    id: r.id,
    status: r.status,
    quantity: r.quantity,
    unit_price: r.unitPrice.toFixed(2),
    product_name: r.productName,
    product_image: r.productImage,
    variant_name: r.variantName,
    requester_name: names.get(r.requesterId)?.fullName ?? null,
    order_id: r.orderId,
    updated_at: r.updatedAt.toISOString(),
    created_at: r.createdAt.toISOString(),
  }));
}

/** GET /b2b/{companyId}/dashboard-stats: staff their own pending count; other roles company-wide counts. */
export async function dashboardStats(deps: Deps, { company, member, userId }: Membership): Promise<DashboardStats> {
  const scope = requestScopeOf(member.b2bRole);
  if (scope === 'own') {
    const pendingCount = await deps.prisma.purchaseRequest.count({ where: { companyId: company.id, requesterId: userId, status: 'pending' } });
    return { role: member.b2bRole, scope, pendingCount };
  }
  const counts = await deps.prisma.purchaseRequest.groupBy({ by: ['status'], where: { companyId: company.id }, _count: { _all: true } });
  const count = (status: PurchaseRequestStatus) => counts.find((c) => c.status === status)?._count._all ?? 0;
  return {
    role: member.b2bRole,
    scope,
    pendingCount: count('pending'),
    approvedCount: count('approved') + count('checkout_pending'),
    rejectedCount: count('rejected'),
    paidCount: count('paid'),
  };
}
