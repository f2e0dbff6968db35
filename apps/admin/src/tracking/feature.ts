import type { AdminFeature } from '../feature';
import { trackingConsumers } from './events';

/** The tracking index: which tracking ids belong to which shipment and order. */
export const trackingFeature: AdminFeature = { name: 'tracking', consumers: trackingConsumers };
