import { randomBytes, randomUUID } from 'node:crypto';
import { callRpc, consumeWithInbox, RpcFailedError, type Bus, type RunningConsumer } from '@pasar/bus';
import {
  identityAccountSetupCompleted,
  identityCreateUser,
  notifierSendEmail,
  type B2bInvitation,
  type InviteTeamMemberBody,
  type ListQuery,
  type RpcRequest,
  type TeamInviteSent,
  type TeamMember,
} from '@pasar/contracts';
import { conflict, notFound, ProblemError } from '@pasar/service-kit';
import { iso, lockKey, now, type B2bDeps, type Tx } from '../deps';
import type { CompanyMember, PrismaClient } from '../generated/prisma/client';
import type { Membership } from '../members/access';
import { rememberUser, userNames, type UserNames } from '../users/users';
import { INVITERS } from '../members/rules';
import { inviteAllowance, invitable, INVITE_WINDOW_MS, inviteIdempotencyKey, invitationsUrl, LISTED_MEMBER_STATUSES, mayRemoveMember, setupUrl } from './rules';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

/** 16 characters from 12 random bytes (base64url). */
export const temporaryPassword = () => randomBytes(12).toString('base64url');

export function toTeamMember(member: CompanyMember, names: UserNames): TeamMember {
  const name = names.get(member.userId);
  return {
    id: member.id,
    userId: member.userId,
    fullName: name?.fullName ?? null,
    email: name?.email ?? null,
    b2bRole: member.b2bRole,
    status: member.status,
    joinedAt: iso(member.joinedAt),
    createdAt: member.createdAt.toISOString(),
  };
}

/** The invite was sent (the same answer for every e-mail), or the company spent its invites of the last 24 hours. */
export type InviteOutcome = { ok: true; sent: TeamInviteSent } | { ok: false; code: 'invite_limit_reached'; retryAfterS: number };

/**
 * POST /b2b/{companyId}/team by the company_admin (DESIGN §7). Every attempt counts against
 * B2B_INVITES_PER_DAY (429 past it). identity creates a customer account with a temporary password
 * (must change it; idempotency key per company and e-mail), or answers the existing account:
 * - a new account (created by this company's invite): a pending membership, active once its account setup is
 *   done; the e-mail carries the temporary password (the synchronous rpc.notifier.send_email, the
 *   only place it travels: never an outbox event or a stored row);
 * - an existing customer: a pending invitation, which the person accepts or declines
 *   (/b2b/invitations); the e-mail links there;
 * - a vendor or administrator account, or a person already active in this or another company:
 *   nothing is written or sent.
 * The answer is the same in every case: whom an e-mail belongs to is never revealed. 502
 * `identity_refused` / `invite_email_failed`; 503 when identity or the notifier does not answer.
 */
export async function inviteTeamMember(deps: Deps, inviter: Membership, body: InviteTeamMemberBody, requestId?: string): Promise<InviteOutcome> {
  const { prisma, bus, config } = deps;
  const company = inviter.company;
  const allowance = await countInvite(deps, company.id, body.email);
  if (!allowance.ok) return { ok: false, code: 'invite_limit_reached', retryAfterS: allowance.retryAfterS };
  const sent: InviteOutcome = { ok: true, sent: { email: body.email, status: 'pending' } };
  const password = temporaryPassword();
  const { user, created } = await createCustomer(bus, company.id, body, password, requestId);
  if (user.role !== 'customer') return sent;
  // only the account this invite created activates on its setup; any other account answers itself
  const viaSetup = created;

  const member = await prisma.$transaction(async (tx) => {
    await lockKey(tx, `b2b-user:${user.id}`);
    const memberships = await tx.companyMember.findMany({ where: { userId: user.id }, select: { companyId: true, status: true } });
    if (!invitable(company.id, memberships).ok) return null;
    await rememberUser(tx, user.id, { fullName: user.fullName, email: user.email });
    const fields = { b2bRole: body.b2bRole, status: 'pending' as const, mustChangePassword: viaSetup, joinedAt: null };
    return tx.companyMember.upsert({
      where: { companyId_userId: { companyId: company.id, userId: user.id } },
      create: { companyId: company.id, userId: user.id, ...fields },
      update: fields,
    });
  });
  if (!member) return sent;

  const inviterName = (await userNames(deps, [inviter.userId])).get(inviter.userId)?.fullName ?? company.name;
  await sendInvite(
    bus,
    {
      messageId: randomUUID(),
      to: user.email,
      template: 'invite',
      vars: {
        fullName: user.fullName,
        inviterName,
        groupName: company.name,
        email: user.email,
        temporaryPassword: created ? password : null,
        setupUrl: viaSetup ? setupUrl(config.APP_URL) : invitationsUrl(config.APP_URL),
      },
    },
    requestId,
  );
  return sent;
}

/**
 * Records one invite of the company, unless it sent B2B_INVITES_PER_DAY in the last 24 hours
 * (counted under the company's lock, so racing invites cannot pass the cap together).
 */
async function countInvite(deps: Deps, companyId: string, email: string): Promise<ReturnType<typeof inviteAllowance>> {
  const at = now(deps);
  return deps.prisma.$transaction(async (tx) => {
    await lockKey(tx, `b2b-invites:${companyId}`);
    const since = new Date(at.getTime() - INVITE_WINDOW_MS);
    const sent = await tx.teamInvite.aggregate({ where: { companyId, createdAt: { gt: since } }, _count: true, _min: { createdAt: true } });
    const allowance = inviteAllowance({ count: sent._count, oldest: sent._min.createdAt }, deps.config.B2B_INVITES_PER_DAY, at);
    if (allowance.ok) await tx.teamInvite.create({ data: { id: randomUUID(), companyId, email, createdAt: at } });
    return allowance;
  });
}

/** GET /b2b/invitations: the caller's invitations waiting for an answer (existing accounts), newest first. */
export async function listInvitations(deps: Pick<Deps, 'prisma'>, userId: string): Promise<B2bInvitation[]> {
  const pending = await deps.prisma.companyMember.findMany({
    where: { userId, status: 'pending', mustChangePassword: false, company: { status: 'approved' } },
    include: { company: { select: { name: true } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  return pending.map((m) => ({ id: m.id, companyId: m.companyId, companyName: m.company.name, b2bRole: m.b2bRole, invitedAt: m.createdAt.toISOString() }));
}

/**
 * POST /b2b/invitations/{id}/accept|decline by the invited person: accept makes the membership
 * active (409 `already_in_company` while they are active in another company); decline makes it
 * inactive. 404 for anything that is not a pending invitation of the caller.
 */
export async function answerInvitation(deps: Pick<Deps, 'prisma' | 'clock'>, userId: string, invitationId: string, accept: boolean): Promise<void> {
  await deps.prisma.$transaction(async (tx) => {
    await lockKey(tx, `b2b-user:${userId}`);
    const invitation = await tx.companyMember.findFirst({
      where: { id: invitationId, userId, status: 'pending', mustChangePassword: false, company: { status: 'approved' } },
    });
    if (!invitation) throw notFound('invitation');
    if (!accept) {
      await tx.companyMember.update({ where: { id: invitation.id }, data: { status: 'inactive' } });
      return;
    }
    const elsewhere = await tx.companyMember.count({ where: { userId, status: 'active', companyId: { not: invitation.companyId } } });
    if (elsewhere > 0) throw conflict('already_in_company', 'leave your current company first');
    await tx.companyMember.update({ where: { id: invitation.id }, data: { status: 'active', joinedAt: now(deps) } });
  });
}

/**
 * DELETE /b2b/{companyId}/team/{memberId}: a member leaves (their own membership) or a
 * company_admin removes a member or withdraws an invitation; the membership becomes inactive.
 * 403 `b2b_role_forbidden` for someone else's membership without company_admin; 404 when the
 * membership is not a current one of the company; 409 `last_company_admin` for the company's last
 * active company_admin.
 */
export async function removeTeamMember(deps: Pick<Deps, 'prisma'>, caller: Membership, memberId: string): Promise<void> {
  await deps.prisma.$transaction(async (tx) => {
    await lockKey(tx, `b2b-team:${caller.company.id}`);
    const target = await tx.companyMember.findFirst({ where: { id: memberId, companyId: caller.company.id, status: { in: ['pending', 'active'] } } });
    if (!target) throw notFound('team member');
    const admins = await tx.companyMember.count({ where: { companyId: caller.company.id, status: 'active', b2bRole: { in: [...INVITERS] } } });
    const allowed = mayRemoveMember({ userId: caller.userId, role: caller.member.b2bRole }, target, admins);
    if (!allowed.ok) throw new ProblemError(allowed.code === 'b2b_role_forbidden' ? 403 : 409, allowed.code, allowed.detail);
    await tx.companyMember.update({ where: { id: target.id }, data: { status: 'inactive', mustChangePassword: false } });
  });
}

/** The invite e-mail, sent now; a refusal is 502 `invite_email_failed` (the membership stays; inviting again resends). */
async function sendInvite(bus: Bus, message: RpcRequest<typeof notifierSendEmail>, requestId?: string): Promise<void> {
  try {
    await callRpc(bus, notifierSendEmail, message, { requestId, timeoutMs: 10_000 });
  } catch (err) {
    if (err instanceof RpcFailedError) throw new ProblemError(502, 'invite_email_failed', 'the invitation e-mail could not be sent; invite again to resend it');
    throw err;
  }
}

async function createCustomer(bus: Bus, companyId: string, body: InviteTeamMemberBody, password: string, requestId?: string) {
  try {
    return await callRpc(
      bus,
      identityCreateUser,
      {
        email: body.email,
        fullName: body.fullName,
        role: 'customer',
        password,
        mustChangePassword: true,
        idempotencyKey: inviteIdempotencyKey(companyId, body.email),
      },
      { requestId },
    );
  } catch (err) {
    if (err instanceof RpcFailedError) throw new ProblemError(502, 'identity_refused', `identity refused the account: ${err.code}`);
    throw err;
  }
}

/** GET /b2b/{companyId}/team: the active members (LISTED_MEMBER_STATUSES: no invitation), newest first, paged. */
export async function listTeam(deps: Deps, membership: Membership, page: ListQuery): Promise<TeamMember[]> {
  const members = await deps.prisma.companyMember.findMany({
    where: { companyId: membership.company.id, status: { in: [...LISTED_MEMBER_STATUSES] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: (page.page - 1) * page.limit,
    take: page.limit,
  });
  const names = await userNames(deps, members.map((m) => m.userId));
  return members.map((m) => toTeamMember(m, names));
}

/** identity.account.setup_completed → the user's pending memberships become active (once per event). */
export function memberActivationConsumer(bus: Bus, prisma: PrismaClient): RunningConsumer {
  return consumeWithInbox(bus, {
    name: 'member-activation',
    event: identityAccountSetupCompleted,
    db: prisma,
    handler: (setup, { tx }) => activateMemberships(tx, setup.userId, new Date(setup.completedAt), setup.fullName),
  });
}

/**
 * Account setup done: memberships pending on this setup (a new account's invite) become active
 * (joined at setup), no membership asks for a password change. An invitation of an existing
 * account waits for its own answer (answerInvitation).
 */
export async function activateMemberships(tx: Tx, userId: string, completedAt: Date, fullName?: string): Promise<void> {
  await lockKey(tx, `b2b-user:${userId}`);
  await tx.companyMember.updateMany({
    where: { userId, status: 'pending', mustChangePassword: true },
    data: { status: 'active', joinedAt: completedAt, mustChangePassword: false },
  });
  await tx.companyMember.updateMany({ where: { userId, mustChangePassword: true }, data: { mustChangePassword: false } });
  if (fullName) await tx.userReplica.updateMany({ where: { userId, updatedAt: { lt: completedAt } }, data: { fullName, updatedAt: completedAt } });
}
