import type { CheckoutFeature } from '../feature';
import { startNotificationPruning } from './pruning';
import { paymentRoutes } from './routes';

/** Payment initiate/retry on the hosted page, and the gateway's notification (DESIGN §6); old notifications are pruned. */
export const paymentsFeature: CheckoutFeature = {
  name: 'payments',
  routes: (router, { prisma, config, log, relay }) => paymentRoutes(router, { prisma, config, log, relay }),
  workers: ({ prisma, config, log }) => [
    startNotificationPruning(prisma, {
      verifiedMs: config.PAYMENT_NOTIFICATION_RETENTION,
      unverifiedMs: config.PAYMENT_UNVERIFIED_NOTIFICATION_RETENTION,
      intervalMs: config.BUS_PRUNE_INTERVAL,
      log,
    }),
  ],
};
