import type { ServiceContext, StartServiceOptions } from '@pasar/service-kit';
import type { Router } from 'express';
import { addressRoutes } from './addresses/routes';
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
];
