import { adminOrdersQuery, uuidParam } from '@pasar/contracts';
import { parse, refusalProblems, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import { adminOrderDetail, searchOrders, type AdminOrderDeps } from './admin-orders';

const problemOf = refusalProblems({ unusable_query: 400 });

/** The administrator's order look-up (console "Orders"). */
export function adminOrderRoutes(router: Router, deps: AdminOrderDeps): void {
  router.get('/admin/orders', async (req, res) => {
    requireRole(req, 'admin');
    const page = await searchOrders(deps, parse(adminOrdersQuery, req.query));
    if ('ok' in page) throw problemOf(page);
    res.json(page);
  });

  router.get('/admin/orders/:id', async (req, res) => {
    requireRole(req, 'admin');
    res.json(await adminOrderDetail(deps, parse(uuidParam, req.params).id));
  });
}
