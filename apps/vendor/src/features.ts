import type { ServiceContext, StartServiceOptions } from '@pasar/service-kit';
import type { Router } from 'express';
import type { VendorConfig } from './config';
import type { PrismaClient } from './generated/prisma/client';
import { pickupAddressRoutes } from './pickup-addresses/routes';
import { bookingContextRpc } from './shipments/booking';
import { shipmentConsumers } from './shipments/events';
import { shipmentRoutes } from './shipments/routes';
import { shippingMethodRoutes } from './shipping-methods/routes';
import { createStoreRpc } from './stores/rpc';

type Options = StartServiceOptions<VendorConfig, PrismaClient>;
export type VendorContext = ServiceContext<VendorConfig, PrismaClient>;

/** One slice of vendor: what it mounts, consumes and answers. A new feature is one entry below. */
export interface VendorFeature {
  name: string;
  routes?: (router: Router, ctx: VendorContext) => void;
  consumers?: NonNullable<Options['consumers']>;
  rpc?: NonNullable<Options['rpc']>;
}

export const features: VendorFeature[] = [
  { name: 'stores', rpc: (ctx) => [createStoreRpc(ctx)] },
  { name: 'shipping-methods', routes: shippingMethodRoutes },
  { name: 'pickup-addresses', routes: pickupAddressRoutes },
  { name: 'shipments', routes: shipmentRoutes, consumers: shipmentConsumers, rpc: (ctx) => [bookingContextRpc(ctx)] },
];
