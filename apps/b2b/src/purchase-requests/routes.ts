import { companyIdParam, createPurchaseRequestBody, listQuery, purchaseRequestsQuery, recentRequestsQuery, rejectPurchaseRequestBody, uuidParam } from '@pasar/contracts';
import { API_PREFIX, parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import type { B2bDeps } from '../deps';
import { requireMember } from '../members/access';
import { BUYERS } from '../members/rules';
import {
  approvedForCheckout,
  cancelPurchaseRequest,
  createPurchaseRequest,
  dashboardStats,
  listPurchaseRequests,
  procurementHistory,
  purchaseRequestDetail,
  recentRequests,
  reviewPurchaseRequest,
} from './purchase-requests';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

/** Purchase requests: raise, list, detail, review, cancel, recent, approved-for-checkout, history, dashboard counts. */
export function purchaseRequestRoutes(router: Router, deps: Deps): void {
  router.post('/b2b/purchase-requests', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const id = await createPurchaseRequest(deps, userId, parse(createPurchaseRequestBody, req.body), req.requestId);
    res.status(201).location(`${API_PREFIX}/b2b/purchase-requests/${id}`).end();
  });

  router.get('/b2b/purchase-requests/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await purchaseRequestDetail(deps, userId, parse(uuidParam, req.params).id));
  });

  router.post('/b2b/purchase-requests/:id/approve', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    await reviewPurchaseRequest(deps, userId, parse(uuidParam, req.params).id, { approve: true });
    res.status(204).end();
  });

  router.post('/b2b/purchase-requests/:id/reject', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    const { note } = parse(rejectPurchaseRequestBody, req.body);
    await reviewPurchaseRequest(deps, userId, id, { approve: false, note });
    res.status(204).end();
  });

  router.post('/b2b/purchase-requests/:id/cancel', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    await cancelPurchaseRequest(deps, userId, parse(uuidParam, req.params).id);
    res.status(204).end();
  });

  router.get('/b2b/:companyId/purchase-requests', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const query = parse(purchaseRequestsQuery, req.query);
    res.json(await listPurchaseRequests(deps, await requireMember(deps.prisma, req, companyId), query));
  });

  router.get('/b2b/:companyId/recent-requests', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const { limit } = parse(recentRequestsQuery, req.query);
    res.json(await recentRequests(deps, await requireMember(deps.prisma, req, companyId), limit));
  });

  router.get('/b2b/:companyId/approved-for-checkout', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const page = parse(listQuery, req.query);
    res.json(await approvedForCheckout(deps, await requireMember(deps.prisma, req, companyId, BUYERS, 'check out'), page));
  });

  router.get('/b2b/:companyId/procurement-history', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const page = parse(listQuery, req.query);
    res.json(await procurementHistory(deps, await requireMember(deps.prisma, req, companyId), page));
  });

  router.get('/b2b/:companyId/dashboard-stats', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    res.json(await dashboardStats(deps, await requireMember(deps.prisma, req, companyId)));
  });
}
