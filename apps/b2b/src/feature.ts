import type { ServiceContext, ServiceFeature } from '@pasar/service-kit';
import type { B2bConfig } from './config';
import type { PrismaClient } from './generated/prisma/client';

/** What a b2b feature receives: prisma, bus, config, log. */
export type B2bContext = ServiceContext<B2bConfig, PrismaClient>;
/** One slice of b2b: what it mounts, consumes, answers and runs. */
export type B2bFeature = ServiceFeature<B2bConfig, PrismaClient>;
