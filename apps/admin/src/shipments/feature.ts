import { adminDeps } from '../deps';
import type { AdminFeature } from '../feature';
import { shipmentRoutes } from './routes';

/** `/admin/shipments/*`: book a shipment with its carrier, its booking, its label behind a signed URL, and the signed URL itself. */
export const shipmentsFeature: AdminFeature = {
  name: 'shipments',
  routes: (router, ctx) => shipmentRoutes(router, adminDeps(ctx)),
};
