import { sqlPoolOf } from '@pasar/db';
import type { CheckoutFeature } from '../feature';
import { cancelB2bOrderResponder, orderDetailsResponder, reservationOrderResponder } from './b2b-submit';
import { orderBatcherOf } from './order-batch';
import { leanOrderRoutes, orderRoutes } from './routes';

/** Checkout proper: submit (single, family and B2B), the pending order and the customer's orders. */
export const ordersFeature: CheckoutFeature = {
  name: 'orders',
  routes: (router, { prisma, config, bus, log, relay }) => orderRoutes(router, { prisma, config, bus, log, relay }),
  leanRoutes: (router, { prisma, config, bus, log, relay }) => leanOrderRoutes(router, { prisma, config, bus, log, relay }),
  rpc: ({ bus, prisma, log }) => [orderDetailsResponder(bus, prisma), reservationOrderResponder(bus, prisma), cancelB2bOrderResponder(bus, prisma, log)],
  // on stop: orders still queued for the batcher answer 503, the batch in flight finishes
  workers: ({ prisma }) => [{ name: 'order-batcher', stop: () => orderBatcherOf(sqlPoolOf(prisma)).stop() }],
};
