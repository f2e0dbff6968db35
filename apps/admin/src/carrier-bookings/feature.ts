import { adminDeps } from '../deps';
import type { AdminFeature } from '../feature';
import { startRetryWorker } from './retry-worker';
import { carrierBookingRoutes } from './routes';

/** Carrier booking with durable retries, and shipping labels behind signed URLs. */
export const carrierBookingsFeature: AdminFeature = {
  name: 'carrier-bookings',
  routes: (router, ctx) => carrierBookingRoutes(router, adminDeps(ctx)),
  workers: (ctx) => [startRetryWorker(adminDeps(ctx))],
};
