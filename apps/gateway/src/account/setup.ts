import { enqueueEvent } from '@pasar/bus';
import { identityAccountSetupCompleted, type AccountSetupBody } from '@pasar/contracts';
import { badRequest, unauthenticated } from '@pasar/service-kit';
import type { GatewayPrisma } from '../db';
import { EVENT_SOURCE, enqueueUserUpserted } from '../users/users';
import { checkCurrentPassword, replacePassword, type AccountDeps, type Caller, type PasswordOutcome } from './passwords';
import { setupCompletedData } from './rules';
import { normaliseOptionalTin } from '@pasar/tax';

/**
 * GET /account/must-change-password. The spec defines it as "true iff a family or B2B membership
 * of the caller has must_change_password set". The gateway answers from the user's own flag,
 * which is equivalent: a membership carries the flag only when its account was created with a
 * temporary password, and that happens only through `rpc.identity.create_user` /
 * `rpc.identity.reset_password` with mustChangePassword=true, which set the user's flag here; the
 * flag is cleared here only by account setup, whose `identity.account.setup_completed` makes
 * checkout and b2b activate the memberships and clear theirs. So no cross-service call is needed.
 */
export async function mustChangePassword(prisma: GatewayPrisma, userId: string): Promise<boolean> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { mustChangePassword: true } });
  if (!user) throw unauthenticated();
  return user.mustChangePassword;
}

/**
 * POST /account/setup (DESIGN §6): a bad TIN is refused first (400 `invalid_tin`, nothing
 * changes); then the current password is verified like change-password (400 `invalid_password`,
 * 429 when over the attempt budget). One transaction sets the new password, name and phone,
 * clears must_change_password, ends the caller's other sessions and enqueues
 * `identity.account.setup_completed` (address and normalised TIN for checkout; memberships become
 * active in checkout and b2b) and `identity.user.upserted` (replicas see the new name and phone).
 */
export async function completeAccountSetup(deps: AccountDeps, caller: Caller, body: AccountSetupBody, requestId?: string): Promise<PasswordOutcome> {
  const tin = normaliseOptionalTin(body.billing?.tin);
  if (!tin.ok) throw badRequest('invalid_tin', tin.reason);
  const check = await checkCurrentPassword(deps, caller, body.currentPassword);
  if (!check.ok) return check;
  const changes = { fullName: body.fullName, phone: body.phone, mustChangePassword: false };
  await replacePassword(deps, caller, check.user, body.newPassword, changes, async (tx, user) => {
    const completed = setupCompletedData(user.id, body, tin.tin, deps.clock());
    await enqueueEvent(tx, identityAccountSetupCompleted, completed, { source: EVENT_SOURCE, requestId });
    await enqueueUserUpserted(tx, user, requestId);
  });
  return { ok: true };
}
