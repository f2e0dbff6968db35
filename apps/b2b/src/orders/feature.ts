import type { B2bFeature } from '../feature';
import { orderConsumers } from './events';
import { orderRoutes } from './routes';

/** The B2B order read model (checkout events), orders, spend and the B2B context. */
export const ordersFeature: B2bFeature = { name: 'orders', routes: orderRoutes, consumers: orderConsumers };
