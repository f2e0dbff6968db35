import type { CreateFamilyBody, FamilyAddressBody } from '@pasar/contracts';
import { conflict, notFound } from '@pasar/service-kit';
import type { FamilyAccount, FamilyMember, PrismaClient } from '../generated/prisma/client';
import { currentMembership, familyOwnedBy, lockFamilyKeys, userLock, type FamilyMembership } from './membership';
import { CURRENT_MEMBERSHIP, LISTED_MEMBERSHIP, ownerFirst } from './rules';
import { systemClock } from '../deps';

/** What the family use cases need. */
export interface FamilyDeps {
  prisma: PrismaClient;
  clock?: () => Date;
}

/** The caller as the signed identity names them. */
export interface Caller {
  userId: string;
  email: string;
}

/** A family with its current members, as the caller sees it. */
export interface FamilyView {
  family: FamilyAccount;
  members: FamilyMember[];
  isOwner: boolean;
}

/**
 * Creates a family owned by the caller, who becomes its first (active) member. A user belongs to
 * one family at most: 409 `already_in_family` when they own one or are a pending or active member.
 */
export async function createFamily({ prisma, clock = systemClock }: FamilyDeps, caller: Caller, body: CreateFamilyBody): Promise<FamilyView> {
  return prisma.$transaction(async (tx) => {
    await lockFamilyKeys(tx, userLock(caller.userId));
    const existing = await tx.familyMember.count({ where: { userId: caller.userId, status: { in: CURRENT_MEMBERSHIP } } });
    const owned = await tx.familyAccount.count({ where: { ownerId: caller.userId } });
    if (existing > 0 || owned > 0) throw conflict('already_in_family', 'you already belong to a family');
    const replica = await tx.userReplica.findUnique({ where: { userId: caller.userId }, select: { fullName: true, email: true } });
    const now = clock();
    const family = await tx.familyAccount.create({ data: { ownerId: caller.userId, name: body.name } });
    const owner = await tx.familyMember.create({
      data: {
        familyId: family.id,
        userId: caller.userId,
        email: replica?.email ?? caller.email,
        fullName: replica?.fullName || caller.email,
        status: 'active',
        mustChangePassword: false,
        invitedAt: now,
        joinedAt: now,
      },
    });
    return { family, members: [owner], isOwner: true };
  });
}

/** The caller's family (as its owner or a pending or active member) with its active members (LISTED_MEMBERSHIP); 404 when none. */
export async function getFamily({ prisma }: FamilyDeps, userId: string): Promise<FamilyView> {
  const membership = await currentMembership(prisma, userId);
  if (!membership) throw notFound('family');
  return viewOf(prisma, membership);
}

/** Sets the address family orders are delivered to (owner only). */
export async function setFamilyAddress({ prisma }: FamilyDeps, userId: string, body: FamilyAddressBody): Promise<void> {
  const { family } = await familyOwnedBy(prisma, userId);
  await prisma.familyAccount.update({
    where: { id: family.id },
    data: {
      fullName: body.fullName,
      phone: body.phone,
      addressLine1: body.addressLine1,
      addressLine2: body.addressLine2 || null,
      city: body.city,
      postcode: body.postcode,
      state: body.state,
    },
  });
}

async function viewOf(prisma: PrismaClient, { family, isOwner }: FamilyMembership): Promise<FamilyView> {
  const members = await prisma.familyMember.findMany({
    where: { familyId: family.id, status: { in: [...LISTED_MEMBERSHIP] } },
    orderBy: [{ invitedAt: 'asc' }, { id: 'asc' }],
  });
  return { family, members: ownerFirst(members, family.ownerId), isOwner };
}
