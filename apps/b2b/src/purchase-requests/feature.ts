import type { B2bFeature } from '../feature';
import { purchaseRequestRoutes } from './routes';

/** Purchase requests and the request dashboards. */
export const purchaseRequestsFeature: B2bFeature = { name: 'purchase-requests', routes: purchaseRequestRoutes };
