import { ProblemError, requireRole } from '@pasar/service-kit';
import type { Request } from 'express';
import type { PrismaClient } from '../generated/prisma/client';

/**
 * The store of the signed-in vendor (store.owner_user_id = the signed user id): 401 anonymous,
 * 403 `forbidden` for another role, 403 `no_store` for a vendor without a store.
 */
export async function requireOwnStore(prisma: PrismaClient, req: Request): Promise<string> {
  const { userId } = requireRole(req, 'vendor');
  const store = await prisma.store.findUnique({ where: { ownerUserId: userId }, select: { id: true } });
  if (!store) throw new ProblemError(403, 'no_store', 'this vendor account has no store yet');
  return store.id;
}
