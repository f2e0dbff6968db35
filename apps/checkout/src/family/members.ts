import { randomBytes, randomUUID } from 'node:crypto';
import { callRpc, enqueueEvent, RpcFailedError, type Bus } from '@pasar/bus';
import { identityCreateUser, notifyEmailRequested, type InviteFamilyMemberBody, type UserSummary } from '@pasar/contracts';
import { conflict, notFound, ProblemError } from '@pasar/service-kit';
import type { FamilyAccount, FamilyMember, Prisma, PrismaClient } from '../generated/prisma/client';
import { familyLock, familyOwnedBy, lockFamilyKeys, userLock, type FamilyDb } from './membership';
import { CURRENT_MEMBERSHIP, hasRoomForMember, inviteEmailVars, mayRemoveMember, setupUrl } from './rules';

/** What inviting needs: identity creates the account, the outbox carries the invite e-mail. */
export interface MemberDeps {
  prisma: PrismaClient;
  bus: Bus;
  config: { APP_URL: string };
  clock?: () => Date;
}

type Tx = Prisma.TransactionClient;

/** 16 characters from 12 random bytes (base64url). */
export function temporaryPassword(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * Invites a person into the owner's family. Identity creates a customer account with a temporary
 * password (must_change_password), or answers the existing account, which is invited without a
 * password change. The membership (pending; must_change_password when the account was created)
 * and the invite e-mail's outbox row are written in one transaction. 409 `already_in_family`,
 * `family_full`, `not_a_customer`; identity not answering → 503 with nothing written.
 */
export async function inviteMember(deps: MemberDeps, ownerId: string, body: InviteFamilyMemberBody, requestId?: string): Promise<FamilyMember> {
  const { prisma, bus, config, clock = () => new Date() } = deps;
  const { family, member: owner } = await familyOwnedBy(prisma, ownerId);
  // Refuse what is already known before an account is created for nothing.
  await assertCanJoin(prisma, family.id, { email: body.email });

  const password = temporaryPassword();
  const { user, created } = await createCustomerAccount(bus, body, password, requestId);
  if (user.role !== 'customer') throw conflict('not_a_customer', 'only a customer account can join a family');

  return prisma.$transaction(async (tx) => {
    await lockFamilyKeys(tx, familyLock(family.id), userLock(user.id));
    await assertCanJoin(tx, family.id, { userId: user.id });
    const member = await upsertPendingMember(tx, family, user, created, clock());
    await enqueueEvent(
      tx,
      notifyEmailRequested,
      {
        messageId: randomUUID(),
        to: user.email,
        template: 'invite',
        vars: inviteEmailVars({
          fullName: user.fullName,
          email: user.email,
          inviterName: owner.fullName,
          familyName: family.name,
          temporaryPassword: created ? password : null,
          setupUrl: setupUrl(config.APP_URL),
        }),
      },
      { source: 'checkout', requestId },
    );
    return member;
  });
}

/** Removes a member (owner only; never the owner): their membership becomes inactive. Another family's member is 404. */
export async function removeMember({ prisma }: Pick<MemberDeps, 'prisma'>, ownerId: string, memberId: string): Promise<void> {
  const { family } = await familyOwnedBy(prisma, ownerId);
  await prisma.$transaction(async (tx) => {
    await lockFamilyKeys(tx, familyLock(family.id));
    const member = await tx.familyMember.findFirst({ where: { id: memberId, familyId: family.id } });
    if (!member) throw notFound('family member');
    if (!mayRemoveMember(family.ownerId, member)) throw conflict('cannot_remove_owner', 'the owner cannot be removed from the family');
    await tx.familyMember.update({ where: { id: member.id }, data: { status: 'inactive' } });
  });
}

async function createCustomerAccount(bus: Bus, body: InviteFamilyMemberBody, password: string, requestId?: string) {
  try {
    return await callRpc(
      bus,
      identityCreateUser,
      { email: body.email, fullName: body.fullName, role: 'customer', password, mustChangePassword: true },
      { requestId },
    );
  } catch (err) {
    if (err instanceof RpcFailedError) throw new ProblemError(502, 'identity_refused', `identity refused the account: ${err.code}`);
    throw err;
  }
}

/**
 * The person (by e-mail before identity answered, by user id after) is not in any family yet,
 * and the family has room for one more member.
 */
async function assertCanJoin(db: FamilyDb, familyId: string, who: { email: string } | { userId: string }): Promise<void> {
  const person = 'email' in who ? { email: { equals: who.email, mode: 'insensitive' as const } } : { userId: who.userId };
  const memberships = await db.familyMember.count({ where: { ...person, status: { in: CURRENT_MEMBERSHIP } } });
  if (memberships > 0) throw conflict('already_in_family', 'this person already belongs to a family');
  const members = await db.familyMember.count({ where: { familyId, status: { in: CURRENT_MEMBERSHIP } } });
  if (!hasRoomForMember(members)) throw conflict('family_full', 'the family has no room for another member');
}

/** A new pending membership, or the family's earlier (removed) membership of this user invited again. */
async function upsertPendingMember(tx: Tx, family: FamilyAccount, user: UserSummary, created: boolean, now: Date): Promise<FamilyMember> {
  const fields = {
    email: user.email,
    fullName: user.fullName,
    status: 'pending' as const,
    mustChangePassword: created,
    invitedAt: now,
    joinedAt: null,
  };
  return tx.familyMember.upsert({
    where: { familyId_userId: { familyId: family.id, userId: user.id } },
    create: { familyId: family.id, userId: user.id, ...fields },
    update: fields,
  });
}
