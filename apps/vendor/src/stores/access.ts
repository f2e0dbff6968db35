import { sqlPoolOf } from '@pasar/db';
import { ProblemError, requireRole, type WithIdentity } from '@pasar/service-kit';
import type { PrismaClient } from '../generated/prisma/client';

/** 403 no_store: the signed-in vendor has no store (yet). */
export const noStore = () => new ProblemError(403, 'no_store', 'this vendor account has no store yet');

/** Every vendor request asks it first: plain prepared SQL (a Prisma call costs several times more CPU). */
const STORE_OF_OWNER = { name: 'vendor-store-of-owner', text: 'SELECT id FROM store WHERE owner_user_id = $1' };

/**
 * The store of the signed-in vendor (store.owner_user_id = the signed user id): 401 anonymous,
 * 403 `forbidden` for another role, 403 `no_store` for a vendor without a store.
 */
export async function requireOwnStore(prisma: PrismaClient, req: WithIdentity): Promise<string> {
  const { userId } = requireRole(req, 'vendor');
  const storeId = await storeOfOwner(prisma, userId);
  if (storeId === null) throw noStore();
  return storeId;
}

/** The store a user owns, or null. */
export async function storeOfOwner(prisma: PrismaClient, ownerUserId: string): Promise<string | null> {
  const { rows } = await sqlPoolOf(prisma).query<{ id: string }>({ ...STORE_OF_OWNER, values: [ownerUserId] });
  return rows[0]?.id ?? null;
}
