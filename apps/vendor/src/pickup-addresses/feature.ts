import type { VendorFeature } from '../feature';
import { pickupAddressRoutes } from './routes';

/** The store's pickup addresses. */
export const pickupAddressesFeature: VendorFeature = {
  name: 'pickup-addresses',
  routes: pickupAddressRoutes,
};
