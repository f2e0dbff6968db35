import type { CheckoutFeature } from '../feature';
import { wishlistRoutes } from './routes';

/** The customer's wishlist (SPEC Customer account). */
export const wishlistFeature: CheckoutFeature = {
  name: 'wishlist',
  routes: (router, { prisma, config }) => wishlistRoutes(router, { prisma, config }),
};
