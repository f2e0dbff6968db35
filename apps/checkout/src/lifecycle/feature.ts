import type { CheckoutFeature } from '../feature';
import { startExpirySweep } from './expiry';
import { shipmentStatusConsumer } from './status-mirror';

/** After submit: unpaid orders expire (durable sweep); vendor's shipment changes are mirrored onto the orders. */
export const orderLifecycleFeature: CheckoutFeature = {
  name: 'order-lifecycle',
  consumers: ({ bus, prisma, log }) => [shipmentStatusConsumer(bus, prisma, log)],
  workers: ({ prisma, config, log }) => [startExpirySweep({ prisma, log }, config.ORDER_EXPIRY_SWEEP_MS)],
};
