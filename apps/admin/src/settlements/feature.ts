import { adminDeps } from '../deps';
import type { AdminFeature } from '../feature';
import { settlementRoutes } from './routes';

/** Carrier settlement CSV import and the settlement list. */
export const settlementsFeature: AdminFeature = {
  name: 'settlements',
  routes: (router, ctx) => settlementRoutes(router, adminDeps(ctx)),
};
