import { randomUUID } from 'node:crypto';
import { RpcRefusal } from '@pasar/bus';
import type { identityCreateUser, identityResetPassword, identityUsers, RpcRequest, RpcResponse } from '@pasar/contracts';
import { isUniqueViolation } from '@pasar/db';
import { hashPassword } from '../auth/passwords';
import { broadcastUserRevocation, deleteUserSessions, type SessionDeps } from '../auth/sessions';
import { enqueueUserUpserted, normaliseEmail, toUserSummary } from '../users/users';

type Deps = Pick<SessionDeps, 'prisma' | 'revocations'>;

/**
 * `rpc.identity.create_user`: idempotent by e-mail. An existing account is returned as it is
 * (created=false); a new one gets the given password and must_change_password flag, and
 * `identity.user.upserted` goes out through the outbox.
 *
 * With an `idempotencyKey`, a repeat of the call that created the user (the caller's retry after
 * a timeout) answers that user with created=true and sets the repeat's password, while the user
 * still must change it (the caller mails the repeat's password, so it must be the one that
 * works); once the user chose a password, a repeat answers created=false and changes nothing
 * (the caller then mails no password). Another key for an existing e-mail answers created=false
 * as without a key.
 */
export async function createUser(
  deps: Deps,
  request: RpcRequest<typeof identityCreateUser>,
  requestId?: string,
): Promise<RpcResponse<typeof identityCreateUser>> {
  const email = normaliseEmail(request.email);
  const repeated = await repeatOf(deps, request, email);
  if (repeated) return repeated;
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
          creationKey: request.idempotencyKey ?? null,
        },
      });
      await enqueueUserUpserted(tx, created, requestId);
      return created;
    });
    return { user: toUserSummary(user), created: true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // created by a concurrent call: the same key (a repeat), or the same e-mail
    const concurrentRepeat = await repeatOf(deps, request, email);
    if (concurrentRepeat) return concurrentRepeat;
    const winner = await deps.prisma.user.findUniqueOrThrow({ where: { email } });
    return { user: toUserSummary(winner), created: false };
  }
}

/**
 * The answer to a repeat of the creation keyed `request.idempotencyKey`, or null when no user
 * was created with that key. A key reused for another e-mail is refused.
 */
async function repeatOf(deps: Deps, request: RpcRequest<typeof identityCreateUser>, email: string): Promise<RpcResponse<typeof identityCreateUser> | null> {
  if (!request.idempotencyKey) return null;
  const user = await deps.prisma.user.findUnique({ where: { creationKey: request.idempotencyKey } });
  if (!user) return null;
  if (user.email !== email) {
    throw new RpcRefusal('idempotency_key_reused', `the idempotencyKey created the account of another e-mail`);
  }
  // only while the temporary password is unchanged: a user who chose a password keeps it
  const passwordHash = user.mustChangePassword ? await hashPassword(request.password) : null;
  const { count } = passwordHash
    ? await deps.prisma.user.updateMany({ where: { id: user.id, mustChangePassword: true }, data: { passwordHash } })
    : { count: 0 };
  const current = await deps.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
  return { user: toUserSummary(current), created: count > 0 };
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
