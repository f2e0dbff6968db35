import type { CheckoutFeature } from '../feature';
import { accountReturnRoutes, vendorReturnRoutes } from './routes';

/** Returns (DESIGN §5): the customer opens them, the store's vendor reviews, receives and refunds. */
export const returnsFeature: CheckoutFeature = {
  name: 'returns',
  routes: (router, { prisma, log }) => {
    accountReturnRoutes(router, { prisma });
    vendorReturnRoutes(router, { prisma, log });
  },
};
