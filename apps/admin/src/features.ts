import { carrierBookingsFeature } from './carrier-bookings/feature';
import type { AdminFeature } from './feature';
import { reconciliationFeature } from './reconciliation/feature';
import { settlementsFeature } from './settlements/feature';
import { shipmentsFeature } from './shipments/feature';
import { trackingFeature } from './tracking/feature';
import { vendorApplicationsFeature } from './vendor-applications/feature';

/** admin's features (DESIGN §1): vendor applications, the shipments' bookings and labels (HTTP), carrier bookings, the tracking index, settlements and their reconciliation. */
export const features: AdminFeature[] = [vendorApplicationsFeature, shipmentsFeature, carrierBookingsFeature, trackingFeature, settlementsFeature, reconciliationFeature];
