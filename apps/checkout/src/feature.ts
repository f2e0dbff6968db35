import type { ServiceContext, ServiceFeature } from '@pasar/service-kit';
import type { CheckoutConfig } from './config';
import type { PrismaClient } from './generated/prisma/client';

/** What a checkout feature receives: config, prisma, bus, log. */
export type CheckoutContext = ServiceContext<CheckoutConfig, PrismaClient>;

/** One slice of checkout: what it mounts, consumes, answers and runs (listed in `features.ts`). */
export type CheckoutFeature = ServiceFeature<CheckoutConfig, PrismaClient>;
