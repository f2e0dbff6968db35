import { consumeWithInbox, type Bus, type RunningConsumer } from '@pasar/bus';
import { identityUserUpserted, type EventData } from '@pasar/contracts';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { lockCustomerEmails, sendDeferredOrderEmails } from '../lifecycle/order-paid';

export type UserUpserted = EventData<typeof identityUserUpserted>;

/** Keeps `user_replica` in step with identity.user.upserted (names and e-mails for lists). */
export function userReplicaConsumer(bus: Bus, prisma: PrismaClient): RunningConsumer {
  return consumeWithInbox(bus, {
    name: 'user-replica',
    event: identityUserUpserted,
    db: prisma,
    handler: (user, { tx }) => applyUserUpserted(tx, user),
  });
}

/**
 * Writes the user unless the replica already holds a version at least as new: an event that
 * arrives late never undoes a newer one. Insert-then-conditional-update keeps that true when two
 * instances handle two versions of one user at the same time. Then the order confirmation e-mails
 * deferred while the replica was missing are requested.
 */
export async function applyUserUpserted(tx: Prisma.TransactionClient, user: UserUpserted): Promise<void> {
  const fields = { email: user.email, fullName: user.fullName, phone: user.phone, role: user.role, updatedAt: new Date(user.updatedAt) };
  await lockCustomerEmails(tx, user.userId);
  const inserted = await tx.userReplica.createMany({ data: [{ userId: user.userId, ...fields }], skipDuplicates: true });
  if (inserted.count === 0) {
    await tx.userReplica.updateMany({ where: { userId: user.userId, updatedAt: { lt: fields.updatedAt } }, data: fields });
  }
  await sendDeferredOrderEmails(tx, user.userId);
}
