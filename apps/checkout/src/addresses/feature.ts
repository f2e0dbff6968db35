import type { CheckoutFeature } from '../feature';
import { addressRoutes } from './routes';

/** The customer's address book. */
export const addressesFeature: CheckoutFeature = {
  name: 'addresses',
  routes: (router, { prisma }) => addressRoutes(router, { prisma }),
};
