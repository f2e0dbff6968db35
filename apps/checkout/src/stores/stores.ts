import { ProblemError } from '@pasar/service-kit';
import type { Prisma, PrismaClient, StoreReplica } from '../generated/prisma/client';

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * The store the user owns, from the store replica (vendor.store.upserted carries the owner's user
 * id), or null when vendor has not told us of one. A vendor owns one store; should the replica
 * ever hold several, the same one (lowest id) is answered every time.
 */
export function storeOfOwner(prisma: Db, userId: string): Promise<StoreReplica | null> {
  return prisma.storeReplica.findFirst({ where: { ownerUserId: userId }, orderBy: { storeId: 'asc' } });
}

/** The caller's store; 403 `no_store` when the vendor has none (yet). */
export async function requireOwnStore(prisma: Db, userId: string): Promise<StoreReplica> {
  const store = await storeOfOwner(prisma, userId);
  if (!store) throw new ProblemError(403, 'no_store', 'your account has no store yet');
  return store;
}
