import { b2bSubmitBody, familySubmitBody, idempotencyHeaders, pageQuery, submitOrderBody, uuidParam, type PlacedOrder } from '@pasar/contracts';
import { API_PREFIX, parse, requireRole, type LeanRequest, type LeanRouter } from '@pasar/service-kit';
import type { Request, Response, Router } from 'express';
import type { Order } from '../generated/prisma/client';
import { submitB2bOrder, type B2bOrderDeps } from './b2b-submit';
import { submitFamilyOrder } from './family-submit';
import { customerOrderDetail, listCustomerOrders, pendingOrderOf } from './orders';
import { submitOrder, toPlacedOrder, type SubmitOptions } from './submit';

/** The per-request options of a submit: Idempotency-Key (<= 100 characters) and request id. */
function submitOptions(req: Pick<Request, 'get' | 'requestId'> | LeanRequest): SubmitOptions {
  const headers = parse(idempotencyHeaders, { 'idempotency-key': req.get('idempotency-key') });
  return { idempotencyKey: headers['idempotency-key'], requestId: req.requestId };
}

/** Where a placed order is read (the Location of a submit's 201). */
const placedLocation = (order: Order) => `${API_PREFIX}/account/orders/${order.id}`;

/** 201, the order's Location, and the submit answer (also for a retry answered from its Idempotency-Key). */
function sendPlaced(res: Response, order: Order): void {
  const body: PlacedOrder = toPlacedOrder(order);
  res.status(201).location(placedLocation(order)).json(body);
}

/**
 * POST /checkout/submit, the busiest write (a flash sale is thousands of them a second), on the
 * lean path: the same checks and answers as the express routes, at a fraction of the cost.
 */
export function leanOrderRoutes(router: LeanRouter, deps: B2bOrderDeps): void {
  router.post('/checkout/submit', async (req) => {
    const { userId } = requireRole(req, 'customer');
    const options = submitOptions(req);
    const order = await submitOrder(deps, userId, parse(submitOrderBody, req.body), options);
    return { status: 201, location: placedLocation(order), body: toPlacedOrder(order) };
  });
}

/** Family and B2B submits, the pending order, and the customer's orders (the single submit: leanOrderRoutes). */
export function orderRoutes(router: Router, deps: B2bOrderDeps): void {
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
