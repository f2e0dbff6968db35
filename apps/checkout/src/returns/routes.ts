import { createReturnBody, listQuery, rejectReturnBody, uuidParam, vendorReturnsQuery } from '@pasar/contracts';
import { API_PREFIX, parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import { toReturnRequestJson, toVendorReturnJson } from './json';
import { createReturn, findReturn, listReturns } from './returns';
import { approveReturn, listStoreReturns, receiveReturn, refundReturn, rejectReturn, type VendorReturnDeps } from './vendor-returns';

/** Customers: GET/POST /account/returns, GET /account/returns/{id}. */
export function accountReturnRoutes(router: Router, deps: Pick<VendorReturnDeps, 'prisma'>): void {
  router.get('/account/returns', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json((await listReturns(deps, userId, parse(listQuery, req.query))).map(toReturnRequestJson));
  });

  router.get('/account/returns/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    res.json(toReturnRequestJson(await findReturn(deps, userId, id)));
  });

  router.post('/account/returns', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const id = await createReturn(deps, userId, parse(createReturnBody, req.body));
    res.status(201).location(`${API_PREFIX}/account/returns/${id}`).end();
  });
}

/** The steps a vendor takes on a return without a body. */
const bodilessSteps = { approve: approveReturn, receive: receiveReturn, refund: refundReturn } as const;

/** Vendors (their own store's returns): GET /vendor/returns, POST /vendor/returns/{id}/approve|reject|receive|refund. */
export function vendorReturnRoutes(router: Router, deps: VendorReturnDeps): void {
  router.get('/vendor/returns', async (req, res) => {
    const { userId } = requireRole(req, 'vendor');
    const { status, ...page } = parse(vendorReturnsQuery, req.query);
    res.json((await listStoreReturns(deps, userId, page, status)).map(toVendorReturnJson));
  });

  for (const [step, run] of Object.entries(bodilessSteps)) {
    router.post(`/vendor/returns/:id/${step}`, async (req, res) => {
      const { userId } = requireRole(req, 'vendor');
      const { id } = parse(uuidParam, req.params);
      await run(deps, userId, id);
      res.status(204).end();
    });
  }

  router.post('/vendor/returns/:id/reject', async (req, res) => {
    const { userId } = requireRole(req, 'vendor');
    const { id } = parse(uuidParam, req.params);
    const { reason } = parse(rejectReturnBody, req.body);
    await rejectReturn(deps, userId, id, reason);
    res.status(204).end();
  });
}
