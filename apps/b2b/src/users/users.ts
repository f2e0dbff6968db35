import { callRpc, consumeWithInbox, type Bus, type RunningConsumer } from '@pasar/bus';
import { identityUserUpserted, identityUsers, type EventData } from '@pasar/contracts';
import type { Logger } from 'pino';
import type { Db, Tx } from '../deps';
import type { PrismaClient } from '../generated/prisma/client';

export type UserUpserted = EventData<typeof identityUserUpserted>;
export interface UserName {
  fullName: string;
  email: string;
}
export type UserNames = ReadonlyMap<string, UserName>;

/** Keeps `user_replica` in step with identity.user.upserted (names and e-mails for lists). */
export function userReplicaConsumer(bus: Bus, prisma: PrismaClient): RunningConsumer {
  return consumeWithInbox(bus, { name: 'user-replica', event: identityUserUpserted, db: prisma, handler: (user, { tx }) => applyUserUpserted(tx, user) });
}

/** Writes the user unless the replica holds a version at least as new (a late event never undoes a newer one). */
export async function applyUserUpserted(tx: Tx, user: UserUpserted): Promise<void> {
  const fields = { email: user.email, fullName: user.fullName, updatedAt: new Date(user.updatedAt) };
  const inserted = await tx.userReplica.createMany({ data: [{ userId: user.userId, ...fields }], skipDuplicates: true });
  if (inserted.count > 0) return;
  await tx.userReplica.updateMany({ where: { userId: user.userId, updatedAt: { lt: fields.updatedAt } }, data: fields });
}

/** Remembers a name b2b learnt another way (rpc, invite) as the oldest version, so any event replaces it. */
export async function rememberUser(db: Db, userId: string, name: UserName): Promise<void> {
  await db.userReplica.createMany({ data: [{ userId, ...name, updatedAt: new Date(0) }], skipDuplicates: true });
}

/**
 * Names and e-mails of users: the replica first, then rpc.identity.users for the ones it lacks
 * (remembered for next time). When identity does not answer, the missing names stay missing
 * (lists show null) rather than failing the read.
 */
export async function userNames(deps: { prisma: PrismaClient; bus: Bus; log: Logger }, userIds: Iterable<string | null>): Promise<UserNames> {
  const ids = [...new Set([...userIds].filter((id): id is string => id !== null))];
  const names = new Map<string, UserName>();
  if (ids.length === 0) return names;
  const rows = await deps.prisma.userReplica.findMany({ where: { userId: { in: ids } } });
  for (const row of rows) names.set(row.userId, { fullName: row.fullName, email: row.email });
  const missing = ids.filter((id) => !names.has(id));
  if (missing.length === 0) return names;
  try {
    const { users } = await callRpc(deps.bus, identityUsers, { userIds: missing.slice(0, 500) });
    for (const user of users) {
      names.set(user.id, { fullName: user.fullName, email: user.email });
      await rememberUser(deps.prisma, user.id, { fullName: user.fullName, email: user.email });
    }
  } catch (err) {
    deps.log.warn({ err, missing: missing.length }, 'identity did not answer user names; lists show them as null');
  }
  return names;
}
