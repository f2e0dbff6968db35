import type { ServiceContext, StartServiceOptions } from '@pasar/service-kit';
import type { Router } from 'express';
import { addressRoutes } from './addresses/routes';
import { catalogFeature } from './catalog/feature';
import { familyFeature } from './family/feature';
import { orderLifecycleFeature } from './lifecycle/feature';
import { ordersFeature } from './orders/feature';
import { paymentsFeature } from './payments/feature';
import { profileFeature } from './profile/feature';
import { followsFeature } from './follows/feature';
import { returnsFeature } from './returns/feature';
import { wishlistFeature } from './wishlist/feature';
import type { CheckoutConfig } from './config';
import type { PrismaClient } from './generated/prisma/client';
import { userReplicaConsumer } from './users/events';

export type CheckoutContext = ServiceContext<CheckoutConfig, PrismaClient>;
type Options = StartServiceOptions<CheckoutConfig, PrismaClient>;

/** A feature of checkout: what it mounts and runs. Add a feature by adding it to `features`. */
export interface CheckoutFeature {
  name: string;
  routes?: (router: Router, ctx: CheckoutContext) => void;
  consumers?: NonNullable<Options['consumers']>;
  rpc?: NonNullable<Options['rpc']>;
  workers?: NonNullable<Options['workers']>;
}

export const features: CheckoutFeature[] = [
  { name: 'addresses', routes: (router, { prisma }) => addressRoutes(router, { prisma }) },
  { name: 'users', consumers: ({ bus, prisma }) => [userReplicaConsumer(bus, prisma)] },
  catalogFeature,
  familyFeature,
  paymentsFeature,
  orderLifecycleFeature,
  ordersFeature,
  profileFeature,
  wishlistFeature,
  followsFeature,
  returnsFeature,
];
