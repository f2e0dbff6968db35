import { adminDeps } from '../deps';
import type { AdminFeature } from '../feature';
import { reconciliationRoutes } from './routes';

/** Carrier settlement reconciliation: expected against billed per parcel, flags, dispute and resolve. */
export const reconciliationFeature: AdminFeature = {
  name: 'reconciliation',
  routes: (router, ctx) => reconciliationRoutes(router, adminDeps(ctx)),
};
