import type { CheckoutFeature } from '../feature';
import { familyActivationConsumer } from './events';
import { familyRoutes } from './routes';

/** Family accounts: routes under /family and the membership activation on account setup. */
export const familyFeature: CheckoutFeature = {
  name: 'family',
  routes: (router, { prisma, bus, config }) => familyRoutes(router, { prisma, bus, config }),
  consumers: ({ bus, prisma }) => [familyActivationConsumer(bus, prisma)],
};
