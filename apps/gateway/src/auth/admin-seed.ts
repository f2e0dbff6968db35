import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '@pasar/db';
import { hashPassword, verifyPassword } from './passwords';
import { broadcastUserRevocation, deleteUserSessions, type SessionDeps } from './sessions';
import { enqueueUserUpserted, normaliseEmail } from '../users/users';

export interface AdminSeed {
  email: string;
  password: string;
  fullName: string;
}

export type AdminSeedResult = 'created' | 'updated' | 'unchanged';

/**
 * Creates the configured administrator, or makes the existing account with that e-mail an admin
 * with that password again (its sessions end when the password changes). Safe to run at every
 * start of every instance.
 */
export async function seedAdmin(deps: Pick<SessionDeps, 'prisma' | 'revocations'>, seed: AdminSeed): Promise<AdminSeedResult> {
  const email = normaliseEmail(seed.email);
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await upsertAdmin(deps, { ...seed, email });
    } catch (err) {
      // another instance created it at the same moment: take the update path
      if (!isUniqueViolation(err) || attempt > 0) throw err;
    }
  }
}

async function upsertAdmin(deps: Pick<SessionDeps, 'prisma' | 'revocations'>, seed: AdminSeed): Promise<AdminSeedResult> {
  const existing = await deps.prisma.user.findUnique({ where: { email: seed.email } });
  if (existing && existing.role === 'admin' && (await verifyPassword(existing.passwordHash, seed.password))) return 'unchanged';
  const passwordHash = await hashPassword(seed.password);
  if (!existing) {
    await deps.prisma.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { id: randomUUID(), email: seed.email, passwordHash, fullName: seed.fullName, role: 'admin', mustChangePassword: false },
      });
      await enqueueUserUpserted(tx, user);
    });
    return 'created';
  }
  await deps.prisma.$transaction(async (tx) => {
    const user = await tx.user.update({ where: { id: existing.id }, data: { passwordHash, role: 'admin', mustChangePassword: false } });
    await deleteUserSessions(tx, user.id);
    await enqueueUserUpserted(tx, user);
  });
  await broadcastUserRevocation(deps, existing.id);
  return 'updated';
}
