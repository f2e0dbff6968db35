import type { CheckoutFeature } from '../feature';
import { loyaltyRoutes } from '../loyalty/routes';
import { promotionRoutes } from '../promotions/routes';
import { orderRoutes } from './routes';

/**
 * Checkout proper: vouchers and KOL codes (admin and validate), submit (single and family), the
 * pending order, the customer's orders and loyalty points.
 */
export const ordersFeature: CheckoutFeature = {
  name: 'orders',
  routes: (router, { prisma, config }) => {
    promotionRoutes(router, { prisma });
    loyaltyRoutes(router, { prisma });
    orderRoutes(router, { prisma, config });
  },
};
