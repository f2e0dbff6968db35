import path from 'node:path';
import { createPrisma } from '@pasar/db';
import { PrismaClient, type Prisma } from './generated/prisma/client';

/** The gateway's own Prisma client (schema `identity`). */
export type GatewayPrisma = PrismaClient;
/** What a use case gets inside `prisma.$transaction(async (tx) => ...)`. */
export type GatewayTx = Prisma.TransactionClient;

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'prisma', 'migrations');

export function createGatewayPrisma(databaseUrl: string): GatewayPrisma {
  return createPrisma(PrismaClient, databaseUrl);
}

/** True for Prisma's "record to update/delete does not exist" (P2025). */
export function isRecordMissing(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && (err as { code: unknown }).code === 'P2025';
}
