import { adminDeps } from '../deps';
import type { AdminFeature } from '../feature';
import { cancellationConsumer } from './cancellations';
import { startRetryWorker } from './retry-worker';
import { carrierBookingRoutes } from './routes';

/** Carrier booking with durable retries (stopped when the shipment is cancelled), and shipping labels behind signed URLs. */
export const carrierBookingsFeature: AdminFeature = {
  name: 'carrier-bookings',
  routes: (router, ctx) => carrierBookingRoutes(router, adminDeps(ctx)),
  consumers: (ctx) => [cancellationConsumer(ctx)],
  workers: (ctx) => [startRetryWorker(adminDeps(ctx))],
};
