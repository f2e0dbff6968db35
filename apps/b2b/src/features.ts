import { companiesFeature } from './companies/feature';
import type { B2bFeature } from './feature';
import { ordersFeature } from './orders/feature';
import { purchaseRequestsFeature } from './purchase-requests/feature';
import { reservationsFeature } from './reservations/feature';
import { teamsFeature } from './teams/feature';
import { usersFeature } from './users/feature';

export const features: readonly B2bFeature[] = [
  usersFeature,
  companiesFeature,
  teamsFeature,
  purchaseRequestsFeature,
  reservationsFeature,
  ordersFeature,
];
