import type { VendorFeature } from './feature';
import { pickupAddressesFeature } from './pickup-addresses/feature';
import { shipmentsFeature } from './shipments/feature';
import { shippingMethodsFeature } from './shipping-methods/feature';
import { storesFeature } from './stores/feature';
import { webhooksFeature } from './webhooks/feature';

/** Every feature of vendor. Add a feature by adding it here. */
export const features: readonly VendorFeature[] = [storesFeature, shippingMethodsFeature, pickupAddressesFeature, shipmentsFeature, webhooksFeature];
