import { addressesFeature } from './addresses/feature';
import { adminOrdersFeature } from './admin-orders/feature';
import { catalogFeature } from './catalog/feature';
import { familyFeature } from './family/feature';
import type { CheckoutFeature } from './feature';
import { followsFeature } from './follows/feature';
import { loyaltyFeature } from './loyalty/feature';
import { orderLifecycleFeature } from './lifecycle/feature';
import { ordersFeature } from './orders/feature';
import { paymentsFeature } from './payments/feature';
import { profileFeature } from './profile/feature';
import { promotionsFeature } from './promotions/feature';
import { returnsFeature } from './returns/feature';
import { usersFeature } from './users/feature';
import { wishlistFeature } from './wishlist/feature';

/** Every feature of checkout. Add a feature by adding it here. */
export const features: readonly CheckoutFeature[] = [
  addressesFeature,
  usersFeature,
  catalogFeature,
  familyFeature,
  paymentsFeature,
  orderLifecycleFeature,
  promotionsFeature,
  loyaltyFeature,
  ordersFeature,
  profileFeature,
  wishlistFeature,
  followsFeature,
  returnsFeature,
  adminOrdersFeature,
];
