import type { ServiceContext, ServiceFeature } from '@pasar/service-kit';
import type { VendorConfig } from './config';
import type { PrismaClient } from './generated/prisma/client';

/** What a vendor feature receives: config, prisma, bus, log. */
export type VendorContext = ServiceContext<VendorConfig, PrismaClient>;

/** One slice of vendor: what it mounts, consumes and answers (listed in `features.ts`). */
export type VendorFeature = ServiceFeature<VendorConfig, PrismaClient>;
