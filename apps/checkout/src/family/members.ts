import { randomBytes, randomUUID } from 'node:crypto';
import { callRpc, RpcFailedError, type Bus } from '@pasar/bus';
import { identityCreateUser, notifierSendEmail, type EmailMessage, type FamilyInviteSent, type InviteFamilyMemberBody, type UserSummary } from '@pasar/contracts';
import { conflict, notFound, ProblemError } from '@pasar/service-kit';
import type { FamilyAccount, FamilyMember, Prisma, PrismaClient } from '../generated/prisma/client';
import { familyLock, familyOwnedBy, lockFamilyKeys, userLock, type FamilyDb } from './membership';
import { CURRENT_MEMBERSHIP, FAMILY_INVITE_WINDOW_MS, hasRoomForMember, inviteAllowance, inviteEmailVars, mayRemoveMember, setupUrl } from './rules';
import { systemClock } from '../deps';

/** What inviting needs: identity creates the account, the notifier sends the invite e-mail now. */
export interface MemberDeps {
  prisma: PrismaClient;
  bus: Bus;
  config: { APP_URL: string; FAMILY_INVITES_PER_DAY: number };
  clock?: () => Date;
}

type Tx = Prisma.TransactionClient;

/** How long the invite waits for the notifier (the SMTP server's acceptance included). */
const INVITE_EMAIL_TIMEOUT_MS = 35_000;

/** 16 characters from 12 random bytes (base64url). */
export function temporaryPassword(): string {
  return randomBytes(12).toString('base64url');
}

/** The invite was sent (the same answer for every e-mail), or the family spent its invites of the last 24 hours (429 with Retry-After). */
export type InviteOutcome = { ok: true; sent: FamilyInviteSent } | { ok: false; code: 'invite_limit_reached'; retryAfterS: number };

/**
 * Invites a person into the owner's family. Identity creates a customer account with a temporary
 * password (must_change_password), or answers the existing account, which is invited without a
 * password change. The create is keyed `family-invite:<familyId>:<email>`, so inviting a pending
 * member again (after a timeout, or to send the e-mail again) neither orphans an account nor
 * leaves a password nobody received.
 *
 * The answer is the same whatever the e-mail belongs to (issue 24): a new or existing customer
 * gets a pending membership (the name the owner typed, must_change_password until account setup);
 * a vendor's or administrator's account, or a person already in a family, gets nothing, and the
 * owner cannot tell which. The invite e-mail (with the
 * temporary password, when there is one) goes through the synchronous `rpc.notifier.send_email`
 * after the membership is written, never through the outbox (no password in any stored message).
 *
 * 409 `family_full` (about the family, not the e-mail); 429 `invite_limit_reached` past
 * FAMILY_INVITES_PER_DAY; identity or notifier not answering → 503, the notifier refusing → 502
 * `invite_email_failed` (the membership stays pending: inviting again sends it again).
 */
export async function inviteMember(deps: MemberDeps, ownerId: string, body: InviteFamilyMemberBody, requestId?: string): Promise<InviteOutcome> {
  const { prisma, bus, config, clock = systemClock } = deps;
  const { family, member: owner } = await familyOwnedBy(prisma, ownerId);
  // every attempt counts, refused ones too: probing e-mails spends the family's budget
  const allowance = await countInvite(prisma, family.id, body.email, config.FAMILY_INVITES_PER_DAY, clock());
  if (!allowance.ok) return { ok: false, code: 'invite_limit_reached', retryAfterS: allowance.retryAfterS };
  const sent: InviteOutcome = { ok: true, sent: { email: body.email, status: 'pending' } };
  // Refuse what is already known before an account is created for nothing.
  if (!(await canJoin(prisma, family.id, { email: body.email }))) return sent;

  const password = temporaryPassword();
  const { user, created } = await createCustomerAccount(bus, family.id, body, password, requestId);
  if (user.role !== 'customer') return sent;

  const member = await prisma.$transaction(async (tx) => {
    await lockFamilyKeys(tx, familyLock(family.id), userLock(user.id));
    if (!(await canJoin(tx, family.id, { userId: user.id }))) return null;
    return upsertPendingMember(tx, family, user, body.fullName, clock());
  });
  if (!member) return sent;
  await sendInviteEmail(bus, {
    messageId: randomUUID(),
    to: user.email,
    template: 'invite',
    vars: inviteEmailVars({
      fullName: body.fullName,
      email: user.email,
      inviterName: owner.fullName,
      familyName: family.name,
      temporaryPassword: created ? password : null,
      setupUrl: setupUrl(config.APP_URL),
    }),
  }, requestId);
  return sent;
}

/**
 * Records one invite of the family, unless it sent FAMILY_INVITES_PER_DAY in the last 24 hours
 * (counted under the family's lock, so racing invites cannot pass the cap together).
 */
async function countInvite(prisma: PrismaClient, familyId: string, email: string, limit: number, now: Date): Promise<ReturnType<typeof inviteAllowance>> {
  return prisma.$transaction(async (tx) => {
    await lockFamilyKeys(tx, familyLock(familyId));
    const since = new Date(now.getTime() - FAMILY_INVITE_WINDOW_MS);
    const sent = await tx.familyInvite.aggregate({ where: { familyId, createdAt: { gt: since } }, _count: true, _min: { createdAt: true } });
    const allowance = inviteAllowance({ count: sent._count, oldest: sent._min.createdAt }, limit, now);
    if (allowance.ok) await tx.familyInvite.create({ data: { id: randomUUID(), familyId, email, createdAt: now } });
    return allowance;
  });
}

async function sendInviteEmail(bus: Bus, message: EmailMessage, requestId?: string): Promise<void> {
  try {
    await callRpc(bus, notifierSendEmail, message, { requestId, timeoutMs: INVITE_EMAIL_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof RpcFailedError) {
      throw new ProblemError(502, 'invite_email_failed', 'the member is invited but the invite e-mail was not sent; invite them again to resend it');
    }
    throw err;
  }
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

/** Keyed by family and e-mail: inviting the same person again into the same family repeats the creation. */
export const familyInviteKey = (familyId: string, email: string) => `family-invite:${familyId}:${email}`;

async function createCustomerAccount(bus: Bus, familyId: string, body: InviteFamilyMemberBody, password: string, requestId?: string) {
  try {
    return await callRpc(
      bus,
      identityCreateUser,
      { email: body.email, fullName: body.fullName, role: 'customer', password, mustChangePassword: true, idempotencyKey: familyInviteKey(familyId, body.email) },
      { requestId },
    );
  } catch (err) {
    if (err instanceof RpcFailedError) throw new ProblemError(502, 'identity_refused', `identity refused the account: ${err.code}`);
    throw err;
  }
}

/**
 * Whether the person (by e-mail before identity answered, by user id after) may be invited: in no
 * family yet, or a pending member of this one (invited again: the invite is sent again); false
 * when they belong to a family (the caller answers as if invited). 409 `family_full` when the
 * family has no room for one more member.
 */
async function canJoin(db: FamilyDb, familyId: string, who: { email: string } | { userId: string }): Promise<boolean> {
  const person = 'email' in who ? { email: { equals: who.email, mode: 'insensitive' as const } } : { userId: who.userId };
  const memberships = await db.familyMember.findMany({ where: { ...person, status: { in: CURRENT_MEMBERSHIP } }, select: { familyId: true, status: true } });
  if (memberships.some((m) => m.familyId === familyId && m.status === 'pending')) return true;
  // the family's room first: whether the e-mail is taken elsewhere must not change the answer
  const members = await db.familyMember.count({ where: { familyId, status: { in: CURRENT_MEMBERSHIP } } });
  if (!hasRoomForMember(members)) throw conflict('family_full', 'the family has no room for another member');
  return memberships.length === 0;
}

/**
 * A new pending membership, or the family's earlier (removed or pending) membership of this user
 * invited again. It shows the name the owner typed, and must_change_password until account
 * setup, whether the account is new or not (the owner cannot tell which).
 */
async function upsertPendingMember(tx: Tx, family: FamilyAccount, user: UserSummary, fullName: string, now: Date): Promise<FamilyMember> {
  const fields = {
    email: user.email,
    fullName,
    status: 'pending' as const,
    mustChangePassword: true,
    invitedAt: now,
    joinedAt: null,
  };
  return tx.familyMember.upsert({
    where: { familyId_userId: { familyId: family.id, userId: user.id } },
    create: { familyId: family.id, userId: user.id, ...fields },
    update: fields,
  });
}
