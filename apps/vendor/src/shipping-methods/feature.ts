import type { VendorFeature } from '../feature';
import { shippingMethodRoutes } from './routes';

/** The store's shipping methods. */
export const shippingMethodsFeature: VendorFeature = {
  name: 'shipping-methods',
  routes: shippingMethodRoutes,
};
