import type { CheckoutFeature } from '../feature';
import { paymentRoutes } from './routes';

/** Payment initiate/retry on the hosted page, and the gateway's notification (DESIGN §6). */
export const paymentsFeature: CheckoutFeature = {
  name: 'payments',
  routes: (router, { prisma, config, log }) => paymentRoutes(router, { prisma, config, log }),
};
