import { forbidden, notFound, ProblemError } from '@pasar/service-kit';
import type { FamilyAccount, FamilyMember, Prisma, PrismaClient } from '../generated/prisma/client';
import { CURRENT_MEMBERSHIP, mayUseCart } from './rules';

/** A Prisma client or a transaction: the lookups below read either. */
export type FamilyDb = PrismaClient | Prisma.TransactionClient;
type Tx = Prisma.TransactionClient;

/** The caller's place in a family. */
export interface FamilyMembership {
  family: FamilyAccount;
  member: FamilyMember;
  isOwner: boolean;
}

/** The user's current (pending or active) membership, or null; a user belongs to one family at most. */
export async function currentMembership(db: FamilyDb, userId: string): Promise<FamilyMembership | null> {
  const member = await db.familyMember.findFirst({
    where: { userId, status: { in: CURRENT_MEMBERSHIP } },
    include: { family: true },
  });
  if (!member) return null;
  const { family, ...row } = member;
  return { family, member: row, isOwner: family.ownerId === userId };
}

/**
 * The family whose shared cart the user may use (and check out): their membership must be
 * active. 404 when they belong to none, 403 `membership_pending` before account setup.
 * Family submit uses it to find the caller's family.
 */
export async function familyOfMember(db: FamilyDb, userId: string): Promise<FamilyMembership> {
  const membership = await currentMembership(db, userId);
  if (!membership) throw notFound('family');
  if (!mayUseCart(membership.member.status)) {
    throw new ProblemError(403, 'membership_pending', 'complete your account setup before you use the family cart');
  }
  return membership;
}

/** The family the user owns: 404 when they belong to none, 403 when they are a member but not its owner. */
export async function familyOwnedBy(db: FamilyDb, userId: string): Promise<FamilyMembership> {
  const membership = await currentMembership(db, userId);
  if (!membership) throw notFound('family');
  if (!membership.isOwner) throw forbidden('only the owner of the family may do this');
  return membership;
}

/** The lock that makes one user's family membership changes take turns (one family per user). */
export const userLock = (userId: string) => `family_user:${userId}`;
/** The lock that makes one family's member and cart changes take turns (member limit, one line per product). */
export const familyLock = (familyId: string) => `family:${familyId}`;

/**
 * Takes transaction-scoped advisory locks, always in the same (sorted) order so two
 * transactions that need the same locks never wait on each other in a cycle.
 */
export async function lockFamilyKeys(tx: Tx, ...keys: string[]): Promise<void> {
  for (const key of [...keys].sort()) {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
  }
}
