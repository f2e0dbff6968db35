import type { CheckoutFeature } from '../feature';
import { storeReplicaConsumers } from '../stores/events';
import { catalogRoutes } from './routes';
import { catalogResponders } from './snapshot';

/** The catalog: public, vendor and admin routes, its rpc responders, and the store and shipping-method replicas it reads. */
export const catalogFeature: CheckoutFeature = {
  name: 'catalog',
  routes: (router, { prisma, config }) => catalogRoutes(router, { prisma, config }),
  consumers: ({ bus, prisma }) => storeReplicaConsumers(bus, prisma),
  rpc: ({ bus, prisma }) => catalogResponders(bus, prisma),
};
