import type { ChangePasswordBody } from '@pasar/contracts';
import { badRequest, unauthenticated } from '@pasar/service-kit';
import { isRecordMissing, type GatewayTx } from '../db';
import type { User } from '../generated/prisma/client';
import type { AuthDeps } from '../auth/auth';
import { hashPassword, verifyPassword } from '../auth/passwords';
import { broadcastUserRevocation, deleteUserSessions } from '../auth/sessions';
import { normaliseEmail } from '../users/users';

/** What the password use cases need. */
export type AccountDeps = Pick<AuthDeps, 'prisma' | 'revocations' | 'limiter' | 'clock'>;

/** The signed-in caller and the session they called with (kept when the others are signed out). */
export interface Caller {
  userId: string;
  email: string;
  /** SHA-256 of the caller's session token. */
  tokenHash: string;
  ip: string;
}

/** A password check spent the caller's budget of attempts: answer 429 with Retry-After. */
export type RateLimited = { ok: false; retryAfterS: number };
export type PasswordOutcome = { ok: true } | RateLimited;

const wrongPassword = () => badRequest('invalid_password', 'the current password is wrong');

/**
 * Verifies the caller's current password. Attempts count against the sign-in budgets (per IP, per
 * account e-mail from that IP, and the e-mail's backoff, shared with sign-in: both are guesses at
 * the same password), and only failures count. Wrong → 400 `invalid_password`.
 */
export async function checkCurrentPassword(deps: AccountDeps, caller: Caller, password: string): Promise<{ ok: true; user: User } | RateLimited> {
  const email = normaliseEmail(caller.email);
  const attempt = await deps.limiter.attempt(caller.ip, email);
  if (!attempt.ok) return attempt;
  const user = await deps.prisma.user.findUnique({ where: { id: caller.userId } });
  if (!user) throw unauthenticated();
  if (!(await verifyPassword(user.passwordHash, password))) {
    await deps.limiter.failed(caller.ip, email);
    throw wrongPassword();
  }
  await deps.limiter.succeeded(caller.ip, email);
  return { ok: true, user };
}

/**
 * Sets the new password of a user whose password was just verified, ends their other sessions,
 * and runs `andThen` in the same transaction. The update only applies while the stored hash is
 * still the verified one: of two concurrent changes with the same current password, the second
 * finds it replaced and answers 400 `invalid_password`. Other gateways drop their cached sessions
 * of the user after the commit.
 */
export async function replacePassword(
  deps: AccountDeps,
  caller: Caller,
  verified: User,
  newPassword: string,
  changes: { fullName?: string; phone?: string; mustChangePassword?: boolean } = {},
  andThen: (tx: GatewayTx, user: User) => Promise<void> = async () => undefined,
): Promise<void> {
  const passwordHash = await hashPassword(newPassword);
  try {
    await deps.prisma.$transaction(async (tx) => {
      const user = await tx.user.update({ where: { id: verified.id, passwordHash: verified.passwordHash }, data: { ...changes, passwordHash } });
      await deleteUserSessions(tx, user.id, caller.tokenHash);
      await andThen(tx, user);
    });
  } catch (err) {
    if (isRecordMissing(err)) throw wrongPassword();
    throw err;
  }
  await broadcastUserRevocation(deps, caller.userId);
}

/**
 * POST /account/change-password: the current password is verified, the new one set (argon2id) and
 * the caller's other sessions signed out (DESIGN §7). must_change_password is left as it is:
 * only account setup clears it, since setup is what activates the memberships that flag stands for.
 */
export async function changePassword(deps: AccountDeps, caller: Caller, body: ChangePasswordBody): Promise<PasswordOutcome> {
  const check = await checkCurrentPassword(deps, caller, body.currentPassword);
  if (!check.ok) return check;
  await replacePassword(deps, caller, check.user, body.newPassword);
  return { ok: true };
}
