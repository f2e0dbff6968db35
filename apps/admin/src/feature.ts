import type { ServiceContext, ServiceFeature } from '@pasar/service-kit';
import type { AdminConfig } from './config';
import type { PrismaClient } from './generated/prisma/client';

/** One slice of admin: what it mounts, consumes, answers and runs. A new feature is one entry in features.ts. */
export type AdminFeature = ServiceFeature<AdminConfig, PrismaClient>;
export type AdminContext = ServiceContext<AdminConfig, PrismaClient>;
