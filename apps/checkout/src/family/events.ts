import { consumeWithInbox, type Bus, type RunningConsumer } from '@pasar/bus';
import { identityAccountSetupCompleted } from '@pasar/contracts';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { lockFamilyKeys, userLock } from './membership';
import { systemClock } from '../deps';

/** identity.account.setup_completed → the user's pending family membership becomes active (once per event). */
export function familyActivationConsumer(bus: Bus, prisma: PrismaClient, clock: () => Date = systemClock): RunningConsumer {
  return consumeWithInbox(bus, {
    name: 'family-activation',
    event: identityAccountSetupCompleted,
    db: prisma,
    handler: ({ userId }, { tx }) => activateMemberships(tx, userId, clock()),
  });
}

/**
 * Account setup done: the user's pending family memberships become active (joined now), and none
 * of their memberships asks for a password change any more.
 */
export async function activateMemberships(tx: Prisma.TransactionClient, userId: string, now: Date): Promise<void> {
  await lockFamilyKeys(tx, userLock(userId));
  await tx.familyMember.updateMany({ where: { userId, status: 'pending' }, data: { status: 'active', joinedAt: now, mustChangePassword: false } });
  await tx.familyMember.updateMany({ where: { userId, mustChangePassword: true }, data: { mustChangePassword: false } });
}
