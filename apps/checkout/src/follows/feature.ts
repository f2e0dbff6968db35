import type { CheckoutFeature } from '../feature';
import { followRoutes } from './routes';

/** Followed stores and the feed of their products (SPEC Customer account, DESIGN §7). */
export const followsFeature: CheckoutFeature = {
  name: 'follows',
  routes: (router, { prisma, config }) => followRoutes(router, { prisma, config }),
};
