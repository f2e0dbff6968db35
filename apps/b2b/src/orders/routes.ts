import { b2bOrdersQuery, companyIdParam, listQuery, uuidParam } from '@pasar/contracts';
import { parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import type { B2bDeps } from '../deps';
import { requireMember } from '../members/access';
import { FINANCE_READERS } from '../members/rules';
import { companyOrderDetail, contextOf, financeStats, listCompanyOrders, monthlySpend } from './orders';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'log' | 'clock'>;

/** The B2B context, orders and spend. */
export function orderRoutes(router: Router, deps: Deps): void {
  router.get('/b2b/context', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await contextOf(deps, userId));
  });

  router.get('/b2b/orders/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await companyOrderDetail(deps, userId, parse(uuidParam, req.params).id, req.requestId));
  });

  router.get('/b2b/:companyId/orders', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const query = parse(b2bOrdersQuery, req.query);
    res.json(await listCompanyOrders(deps, await requireMember(deps.prisma, req, companyId), query));
  });

  router.get('/b2b/:companyId/finance-stats', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    res.json(await financeStats(deps, await requireMember(deps.prisma, req, companyId, FINANCE_READERS, 'see finance stats')));
  });

  router.get('/b2b/:companyId/monthly-spend', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const page = parse(listQuery, req.query);
    res.json(await monthlySpend(deps, await requireMember(deps.prisma, req, companyId, FINANCE_READERS, 'see spend'), page));
  });
}
