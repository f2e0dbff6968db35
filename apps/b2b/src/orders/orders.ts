import { callRpc, RpcFailedError } from '@pasar/bus';
import { ProblemError } from '@pasar/service-kit';
import { checkoutOrderDetails, type B2bContext as B2bContextBody, type B2bOrderDetail, type B2bOrderSummary, type FinanceStats, type ListQuery, type MonthlySpendEntry } from '@pasar/contracts';
import { now, type B2bDeps } from '../deps';
import { activeMembershipOf, type Membership } from '../members/access';
import { taxCompletenessOf } from '../members/rules';
import { userNames } from '../users/users';
import { SPENT_STATUSES, startOfMonth } from './rules';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'log' | 'clock'>;

/** GET /b2b/context: the caller's active membership in an approved company, or null. */
export async function contextOf({ prisma }: Pick<Deps, 'prisma'>, userId: string): Promise<B2bContextBody> {
  const membership = await activeMembershipOf(prisma, userId);
  if (!membership) return null;
  return {
    companyId: membership.company.id,
    companyName: membership.company.name,
    companyStatus: membership.company.status,
    memberId: membership.id,
    role: membership.b2bRole,
    memberStatus: membership.status,
    mustChangePassword: membership.mustChangePassword,
    taxComplete: taxCompletenessOf(membership.company).complete,
  };
}

/** The requester names of each order's purchase requests, comma separated, in request order. */
async function requestersOf(deps: Deps, orderIds: readonly string[]): Promise<Map<string, string>> {
  const requests = await deps.prisma.purchaseRequest.findMany({
    where: { orderId: { in: [...orderIds] } },
    select: { orderId: true, requesterId: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const names = await userNames(deps, requests.map((r) => r.requesterId));
  const byOrder = new Map<string, string[]>();
  for (const r of requests) {
    const list = byOrder.get(r.orderId!) ?? [];
    const name = names.get(r.requesterId)?.fullName;
    if (name && !list.includes(name)) list.push(name);
    byOrder.set(r.orderId!, list);
  }
  return new Map([...byOrder].map(([orderId, list]) => [orderId, list.join(', ')]));
}

/** GET /b2b/{companyId}/orders: the company's B2B orders, newest first, optional status filter, paged. */
export async function listCompanyOrders(deps: Deps, { company }: Membership, query: ListQuery & { status?: string }): Promise<B2bOrderSummary[]> {
  const orders = await deps.prisma.b2bOrder.findMany({
    where: { companyId: company.id, ...(query.status ? { status: query.status } : {}) },
    orderBy: [{ createdAt: 'desc' }, { orderId: 'desc' }],
    skip: (query.page - 1) * query.limit,
    take: query.limit,
  });
  const requesters = await requestersOf(deps, orders.map((o) => o.orderId));
  return orders.map((o) => ({
    id: o.orderId,
    shortId: o.shortId ?? '',
    status: o.status,
    totalAmount: (o.total ?? 0).toFixed(2),
    subOrderCount: o.subOrderCount ?? 0,
    requestedBy: requesters.get(o.orderId) || null,
    createdAt: (o.createdAt ?? o.updatedAt).toISOString(),
  }));
}

/**
 * GET /b2b/orders/{id}: checkout's order detail plus purchaseRequestMeta, for an active member of
 * the owning company; null otherwise (existence is not revealed).
 */
export async function companyOrderDetail(deps: Deps, userId: string, orderId: string, requestId?: string): Promise<B2bOrderDetail> {
  const order = await deps.prisma.b2bOrder.findUnique({ where: { orderId } });
  if (!order?.companyId) return null;
  const member = await deps.prisma.companyMember.findFirst({
    where: { companyId: order.companyId, userId, status: 'active', company: { status: 'approved' } },
  });
  if (!member) return null;
  const { order: detail } = await callRpc(deps.bus, checkoutOrderDetails, { orderId }, { requestId }).catch((err: unknown) => {
    if (err instanceof RpcFailedError) throw new ProblemError(502, 'checkout_refused', 'checkout could not answer the order detail');
    throw err;
  });
  if (!detail) return null;
  const requests = await deps.prisma.purchaseRequest.findMany({ where: { orderId, companyId: order.companyId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  const names = await userNames(deps, requests.map((r) => r.requesterId));
  return {
    ...detail,
    purchaseRequestMeta: requests.map((r) => ({
      id: r.id,
      requesterName: names.get(r.requesterId)?.fullName ?? null,
      productName: r.productName,
      quantity: r.quantity,
      unitPrice: r.unitPrice.toFixed(2),
      status: r.status,
    })),
  };
}

/** The company's paid spend since `from` (exact numeric sum, as the orders' totals). */
async function spendSince(deps: Deps, companyId: string, from: Date): Promise<string> {
  const [row] = await deps.prisma.$queryRaw<{ total: string }[]>`
    SELECT COALESCE(SUM(total), 0)::numeric(14, 2)::text AS total FROM b2b_order
    WHERE company_id = ${companyId}::uuid AND paid_at >= ${from} AND status = ANY(${[...SPENT_STATUSES]}::text[])`;
  return row.total;
}

/** GET /b2b/{companyId}/finance-stats (DESIGN §7). */
export async function financeStats(deps: Deps, { company }: Membership): Promise<FinanceStats> {
  const monthStart = startOfMonth(now(deps));
  const [totalSpendThisMonth, pendingPayments, approvedThisMonth, teamSize] = await Promise.all([
    spendSince(deps, company.id, monthStart),
    deps.prisma.purchaseRequest.count({ where: { companyId: company.id, status: { in: ['approved', 'checkout_pending'] } } }),
    deps.prisma.purchaseRequest.count({ where: { companyId: company.id, reviewedAt: { gte: monthStart }, status: { in: ['approved', 'checkout_pending', 'paid'] } } }),
    deps.prisma.companyMember.count({ where: { companyId: company.id, status: 'active' } }),
  ]);
  return { totalSpendThisMonth, pendingPayments, approvedThisMonth, teamSize };
}

/** GET /b2b/{companyId}/monthly-spend: paid spend per UTC month, newest month first, paged. */
export async function monthlySpend(deps: Deps, { company }: Membership, page: ListQuery): Promise<MonthlySpendEntry[]> {
  const rows = await deps.prisma.$queryRaw<{ month: string; total: string }[]>`
    SELECT to_char(date_trunc('month', paid_at AT TIME ZONE 'UTC'), 'YYYY-MM') AS month, SUM(total)::numeric(14, 2)::text AS total
    FROM b2b_order
    WHERE company_id = ${company.id}::uuid AND paid_at IS NOT NULL AND status = ANY(${[...SPENT_STATUSES]}::text[])
    GROUP BY 1 ORDER BY 1 DESC
    LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`;
  return rows.map((r) => ({ month: r.month, total_spend: r.total }));
}
