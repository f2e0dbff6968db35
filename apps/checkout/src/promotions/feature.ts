import type { CheckoutFeature } from '../feature';
import { promotionRoutes } from './routes';

/** Vouchers and KOL codes: the admin's lists and edits, and the customer's validate calls. */
export const promotionsFeature: CheckoutFeature = {
  name: 'promotions',
  routes: (router, { prisma }) => promotionRoutes(router, { prisma }),
};
