import type { CheckoutFeature } from '../feature';
import { accountSetupProfileConsumer } from './events';
import { profileRoutes } from './routes';

/** The customer profile: the TIN (GET/PATCH /account/tin) and what account setup saves (default address, TIN). */
export const profileFeature: CheckoutFeature = {
  name: 'profile',
  routes: (router, { prisma }) => profileRoutes(router, { prisma }),
  consumers: ({ bus, prisma, log }) => [accountSetupProfileConsumer(bus, prisma, log)],
};
