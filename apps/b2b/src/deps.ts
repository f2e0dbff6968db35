import { createHash } from 'node:crypto';
import type { Bus } from '@pasar/bus';
import type { Logger } from 'pino';
import type { B2bConfig } from './config';
import type { Prisma, PrismaClient } from './generated/prisma/client';

/** What b2b's use cases take, explicitly; each names the part it needs (`Pick<B2bDeps, 'prisma'>`). */
export interface B2bDeps {
  prisma: PrismaClient;
  bus: Bus;
  config: B2bConfig;
  log: Logger;
  clock?: () => Date;
}

export type Tx = Prisma.TransactionClient;
export type Db = PrismaClient | Tx;

/** Every event b2b writes to its outbox names this source. */
export const EVENT_SOURCE = { source: 'b2b' } as const;

export const now = (deps: Pick<B2bDeps, 'clock'>): Date => deps.clock?.() ?? new Date();

/** Transaction-scoped advisory locks, shared by every service (packages/db). */
export { lockKey } from '@pasar/db';

export const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/** A stable UUID (v5 layout, SHA-1) named by a business key: the same key, the same id (e-mail message ids). */
export function uuidFrom(key: string): string {
  const hex = createHash('sha1').update(`pasar.b2b:${key}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
