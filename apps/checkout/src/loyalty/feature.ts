import type { CheckoutFeature } from '../feature';
import { loyaltyRoutes } from './routes';

/** The customer's loyalty points: the ledger and the balance. */
export const loyaltyFeature: CheckoutFeature = {
  name: 'loyalty',
  routes: (router, { prisma }) => loyaltyRoutes(router, { prisma }),
};
