import type { CheckoutFeature } from '../feature';
import { adminOrderRoutes } from './routes';

/** The administrator's order look-up: search by short id, id or e-mail; one order with its timeline. */
export const adminOrdersFeature: CheckoutFeature = {
  name: 'admin-orders',
  routes: (router, { prisma }) => adminOrderRoutes(router, { prisma }),
};
