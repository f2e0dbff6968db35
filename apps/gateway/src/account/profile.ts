import type { updateProfileBody } from '@pasar/contracts';
import { notFound } from '@pasar/service-kit';
import type { z } from 'zod';
import { isRecordMissing } from '../db';
import { broadcastUserRevocation, type SessionDeps } from '../auth/sessions';
import { enqueueUserUpserted } from '../users/users';

/** Changes the caller's full name and tells the replicas (`identity.user.upserted`). */
export async function updateProfile(
  deps: Pick<SessionDeps, 'prisma' | 'revocations'>,
  userId: string,
  input: z.infer<typeof updateProfileBody>,
  requestId?: string,
): Promise<void> {
  try {
    await deps.prisma.$transaction(async (tx) => {
      const user = await tx.user.update({ where: { id: userId }, data: { fullName: input.fullName } });
      await enqueueUserUpserted(tx, user, requestId);
    });
  } catch (err) {
    if (isRecordMissing(err)) throw notFound('user');
    throw err;
  }
  // cached sessions carry the old name
  await broadcastUserRevocation(deps, userId);
}
