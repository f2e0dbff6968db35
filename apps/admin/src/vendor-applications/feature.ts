import { adminDeps } from '../deps';
import type { AdminFeature } from '../feature';
import { vendorApplicationRoutes } from './routes';

/** Vendor onboarding: applications, their review, and the approval saga. */
export const vendorApplicationsFeature: AdminFeature = {
  name: 'vendor-applications',
  routes: (router, ctx) => vendorApplicationRoutes(router, adminDeps(ctx)),
};
