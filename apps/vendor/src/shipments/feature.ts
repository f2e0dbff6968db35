import type { VendorFeature } from '../feature';
import { bookingContextRpc } from './booking';
import { shipmentConsumers } from './events';
import { leanShipmentRoutes, shipmentRoutes } from './routes';

/** Shipments: made from checkout's orders, shipped by the vendor, booked by admin. */
export const shipmentsFeature: VendorFeature = {
  name: 'shipments',
  routes: shipmentRoutes,
  leanRoutes: leanShipmentRoutes,
  consumers: shipmentConsumers,
  rpc: (ctx) => [bookingContextRpc(ctx)],
};
