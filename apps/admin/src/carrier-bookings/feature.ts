import { adminDeps } from '../deps';
import type { AdminFeature } from '../feature';
import { cancellationConsumer } from './cancellations';
import { startRetryWorker } from './retry-worker';

/** Carrier booking with durable retries, stopped when the shipment is cancelled (its routes are the shipments room's). */
export const carrierBookingsFeature: AdminFeature = {
  name: 'carrier-bookings',
  consumers: (ctx) => [cancellationConsumer(ctx)],
  workers: (ctx) => [startRetryWorker(adminDeps(ctx))],
};
