import { b2bSubmitBody, familySubmitBody, idempotencyHeaders, pageQuery, submitOrderBody, uuidParam, type PlacedOrder } from '@pasar/contracts';
import { API_PREFIX, parse, requireRole } from '@pasar/service-kit';
import type { Request, Response, Router } from 'express';
import type { Order } from '../generated/prisma/client';
import { submitB2bOrder, type B2bOrderDeps } from './b2b-submit';
import { submitFamilyOrder } from './family-submit';
import { customerOrderDetail, listCustomerOrders, pendingOrderOf } from './orders';
import { submitOrder, toPlacedOrder, type SubmitOptions } from './submit';

/** The per-request options of a submit: Idempotency-Key (<= 100 characters) and request id. */
function submitOptions(req: Request): SubmitOptions {
  const headers = parse(idempotencyHeaders, { 'idempotency-key': req.get('idempotency-key') });
  return { idempotencyKey: headers['idempotency-key'], requestId: req.requestId };
}

/** 201, the order's Location, and the submit answer (also for a retry answered from its Idempotency-Key). */
function sendPlaced(res: Response, order: Order): void {
  const body: PlacedOrder = toPlacedOrder(order);
  res.status(201).location(`${API_PREFIX}/account/orders/${order.id}`).json(body);
}

/** Submits (single, family and B2B), the pending order, and the customer's orders. */
export function orderRoutes(router: Router, deps: B2bOrderDeps): void {
  router.post('/checkout/submit', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const options = submitOptions(req);
    sendPlaced(res, await submitOrder(deps, userId, parse(submitOrderBody, req.body), options));
  });

  router.post('/checkout/family/submit', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const options = submitOptions(req);
    sendPlaced(res, await submitFamilyOrder(deps, userId, parse(familySubmitBody, req.body), options));
  });

  router.post('/checkout/b2b/submit', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const options = submitOptions(req);
    sendPlaced(res, await submitB2bOrder(deps, userId, parse(b2bSubmitBody, req.body), options));
  });

  router.get('/checkout/pending-order', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await pendingOrderOf(deps, userId));
  });

  router.get('/account/orders', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { page } = parse(pageQuery, req.query);
    res.json(await listCustomerOrders(deps, userId, page));
  });

  router.get('/account/orders/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    res.json(await customerOrderDetail(deps, userId, id));
  });
}
