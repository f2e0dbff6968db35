import { randomUUID } from 'node:crypto';
import { RpcRefusal } from '@pasar/bus';
import type { identityCreateUser, identityResetPassword, identityUsers, RpcRequest, RpcResponse } from '@pasar/contracts';
import { hashPassword } from '../auth/passwords';
import { broadcastUserRevocation, deleteUserSessions, type SessionDeps } from '../auth/sessions';
import { isUniqueViolation } from '../db';
import { enqueueUserUpserted, normaliseEmail, toUserSummary } from '../users/users';

type Deps = Pick<SessionDeps, 'prisma' | 'revocations'>;

/**
 * `rpc.identity.create_user`: idempotent by e-mail. An existing account is returned as it is
 * (created=false); a new one gets the given password and must_change_password flag, and
 * `identity.user.upserted` goes out through the outbox.
 */
export async function createUser(
  deps: Deps,
  request: RpcRequest<typeof identityCreateUser>,
  requestId?: string,
): Promise<RpcResponse<typeof identityCreateUser>> {
  const email = normaliseEmail(request.email);
  const existing = await deps.prisma.user.findUnique({ where: { email } });
  if (existing) return { user: toUserSummary(existing), created: false };
  const passwordHash = await hashPassword(request.password);
  try {
    const user = await deps.prisma.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: {
          id: randomUUID(),
          email,
          passwordHash,
          fullName: request.fullName,
          phone: request.phone ?? null,
          role: request.role,
          mustChangePassword: request.mustChangePassword,
        },
      });
      await enqueueUserUpserted(tx, created, requestId);
      return created;
    });
    return { user: toUserSummary(user), created: true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // created by a concurrent call with the same e-mail
    const winner = await deps.prisma.user.findUniqueOrThrow({ where: { email } });
    return { user: toUserSummary(winner), created: false };
  }
}

/**
 * `rpc.identity.reset_password`: sets a new password and the must_change_password flag, ends
 * every session of the user and drops them from every gateway's cache.
 */
export async function resetPassword(deps: Deps, request: RpcRequest<typeof identityResetPassword>): Promise<RpcResponse<typeof identityResetPassword>> {
  const passwordHash = await hashPassword(request.password);
  const user = await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.user.updateMany({
      where: { id: request.userId },
      data: { passwordHash, mustChangePassword: request.mustChangePassword },
    });
    if (count === 0) return null;
    await deleteUserSessions(tx, request.userId);
    return tx.user.findUniqueOrThrow({ where: { id: request.userId } });
  });
  if (!user) throw new RpcRefusal('not_found', `no user ${request.userId}`);
  await broadcastUserRevocation(deps, user.id);
  return { user: toUserSummary(user) };
}

/** `rpc.identity.users`: the users with these ids (unknown ids are left out). */
export async function findUsers(deps: Pick<Deps, 'prisma'>, request: RpcRequest<typeof identityUsers>): Promise<RpcResponse<typeof identityUsers>> {
  if (request.userIds.length === 0) return { users: [] };
  const users = await deps.prisma.user.findMany({ where: { id: { in: request.userIds } }, orderBy: { createdAt: 'asc' } });
  return { users: users.map(toUserSummary) };
}
