import { randomBytes, randomUUID } from 'node:crypto';
import { callRpc, consumeWithInbox, RpcFailedError, type Bus, type RunningConsumer } from '@pasar/bus';
import { identityAccountSetupCompleted, identityCreateUser, notifierSendEmail, type InviteTeamMemberBody, type ListQuery, type RpcRequest, type TeamMember } from '@pasar/contracts';
import { conflict, ProblemError } from '@pasar/service-kit';
import { iso, lockKey, now, type B2bDeps, type Tx } from '../deps';
import type { CompanyMember, PrismaClient } from '../generated/prisma/client';
import type { Membership } from '../members/access';
import { rememberUser, userNames, type UserNames } from '../users/users';
import { invitable, inviteIdempotencyKey, setupUrl } from './rules';

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

/**
 * POST /b2b/{companyId}/team by the company_admin (DESIGN §7). identity creates a customer account
 * with a temporary password (must change it; idempotency key per company and e-mail), or answers
 * the existing customer. A new account's membership is pending until account setup; an existing
 * customer joins at once. The invite e-mail goes through the synchronous rpc.notifier.send_email,
 * the only place the temporary password travels (never an outbox event or a stored row).
 * 409 `already_member`, `already_in_company`, `not_a_customer`; 502 `identity_refused`; 503 when
 * identity or the notifier does not answer (a pending invite can be sent again).
 */
export async function inviteTeamMember(deps: Deps, inviter: Membership, body: InviteTeamMemberBody, requestId?: string): Promise<TeamMember> {
  const { prisma, bus, config } = deps;
  const company = inviter.company;
  const password = temporaryPassword();
  const { user, created } = await createCustomer(bus, company.id, body, password, requestId);
  if (user.role !== 'customer') throw conflict('not_a_customer', 'only a customer account can join a company');
  const joinedAt = now(deps);

  const member = await prisma.$transaction(async (tx) => {
    await lockKey(tx, `b2b-user:${user.id}`);
    const memberships = await tx.companyMember.findMany({ where: { userId: user.id }, select: { companyId: true, status: true } });
    const allowed = invitable(company.id, memberships);
    if (!allowed.ok) throw conflict(allowed.code, allowed.detail);
    await rememberUser(tx, user.id, { fullName: user.fullName, email: user.email });
    const pending = created || user.mustChangePassword;
    const fields = pending
      ? { b2bRole: body.b2bRole, status: 'pending' as const, mustChangePassword: true, joinedAt: null }
      : { b2bRole: body.b2bRole, status: 'active' as const, mustChangePassword: false, joinedAt };
    return tx.companyMember.upsert({
      where: { companyId_userId: { companyId: company.id, userId: user.id } },
      create: { companyId: company.id, userId: user.id, ...fields },
      update: fields,
    });
  });

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
        setupUrl: setupUrl(config.APP_URL),
      },
    },
    requestId,
  );
  return toTeamMember(member, new Map([[user.id, { fullName: user.fullName, email: user.email }]]));
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

/** GET /b2b/{companyId}/team: the members (not removed), newest first, paged. */
export async function listTeam(deps: Deps, membership: Membership, page: ListQuery): Promise<TeamMember[]> {
  const members = await deps.prisma.companyMember.findMany({
    where: { companyId: membership.company.id, status: { in: ['pending', 'active'] } },
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

/** Account setup done: pending memberships become active (joined at setup), no membership asks for a password change. */
export async function activateMemberships(tx: Tx, userId: string, completedAt: Date, fullName?: string): Promise<void> {
  await lockKey(tx, `b2b-user:${userId}`);
  await tx.companyMember.updateMany({ where: { userId, status: 'pending' }, data: { status: 'active', joinedAt: completedAt, mustChangePassword: false } });
  await tx.companyMember.updateMany({ where: { userId, mustChangePassword: true }, data: { mustChangePassword: false } });
  if (fullName) await tx.userReplica.updateMany({ where: { userId, updatedAt: { lt: completedAt } }, data: { fullName, updatedAt: completedAt } });
}
