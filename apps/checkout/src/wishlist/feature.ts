import type { CheckoutFeature } from '../features';
import { wishlistRoutes } from './routes';

/** The customer's wishlist (SPEC Customer account). */
export const wishlistFeature: CheckoutFeature = {
  name: 'wishlist',
  routes: (router, { prisma, config }) => wishlistRoutes(router, { prisma, config }),
};
