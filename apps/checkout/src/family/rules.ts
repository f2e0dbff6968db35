import { MAX_FAMILY_CART_QUANTITY, MAX_FAMILY_MEMBERS, type EmailVars, type FamilyAddress } from '@pasar/contracts';
import { Prisma, type FamilyAccount, type MembershipStatus } from '../generated/prisma/client';

/** Pending and active members belong to a family; inactive ones were removed. */
export const CURRENT_MEMBERSHIP: MembershipStatus[] = ['pending', 'active'];

/**
 * The memberships the family view lists: active ones only. An invite writes a pending membership
 * only for some e-mails (a customer free to join), none for a vendor, an administrator or a member
 * of another family; listing pending rows would tell the owner which kind of account an e-mail
 * belongs to (issue 24). The cost: the owner neither sees nor withdraws a pending invite.
 */
export const LISTED_MEMBERSHIP: readonly MembershipStatus[] = ['active'];

/** A family may invite another member while it has fewer current members (the owner included) than the limit. */
export function hasRoomForMember(currentMembers: number, limit = MAX_FAMILY_MEMBERS): boolean {
  return currentMembers < limit;
}

/** The window of the per-family invite cap (FAMILY_INVITES_PER_DAY). */
export const FAMILY_INVITE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a family that sent `sentInWindow` invites in the last 24 hours may send another; when
 * not, after how many seconds the oldest of them leaves the window (Retry-After).
 */
export function inviteAllowance(
  sentInWindow: { count: number; oldest: Date | null },
  limit: number,
  now: Date,
): { ok: true } | { ok: false; retryAfterS: number } {
  if (sentInWindow.count < limit) return { ok: true };
  const freesAt = (sentInWindow.oldest ?? now).getTime() + FAMILY_INVITE_WINDOW_MS;
  return { ok: false, retryAfterS: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
}

/** What a member may do with the shared cart (and family checkout): only once their membership is active. */
export function mayUseCart(status: MembershipStatus): boolean {
  return status === 'active';
}

/** The owner is never removed from their own family. */
export function mayRemoveMember(ownerId: string, member: { userId: string }): boolean {
  return member.userId !== ownerId;
}

/** The family's delivery address; null until the owner has set it (every required field present). */
export function familyAddress(family: FamilyAccount): FamilyAddress | null {
  const { fullName, phone, addressLine1, addressLine2, city, postcode, state } = family;
  if (!fullName || !phone || !addressLine1 || !city || !postcode || !state) return null;
  return { fullName, phone, addressLine1, addressLine2, city, postcode, state };
}

/** The order GET /family lists members in: the owner first, then the others as the database gave them. */
export function ownerFirst<T extends { userId: string }>(members: readonly T[], ownerId: string): T[] {
  return [...members.filter((m) => m.userId === ownerId), ...members.filter((m) => m.userId !== ownerId)];
}

/** The quantity of a cart line after adding `added`, or null when it would pass the per-line limit. */
export function mergedQuantity(current: number, added: number, limit = MAX_FAMILY_CART_QUANTITY): number | null {
  const total = current + added;
  return total <= limit ? total : null;
}

export function lineTotal(price: Prisma.Decimal, quantity: number): Prisma.Decimal {
  return price.mul(quantity).toDecimalPlaces(2);
}

export function subtotal(lineTotals: readonly Prisma.Decimal[]): Prisma.Decimal {
  return lineTotals.reduce((sum, line) => sum.add(line), new Prisma.Decimal(0));
}

/**
 * What the invite e-mail shows instead of a temporary password when the invitee already had an
 * account: they sign in with the password they have (the `invite` template requires the field).
 */
/** The `invite` e-mail: the temporary password only when the account was created for this invite. */
export function inviteEmailVars(invite: {
  fullName: string;
  email: string;
  inviterName: string;
  familyName: string;
  temporaryPassword: string | null;
  setupUrl: string;
}): EmailVars<'invite'> {
  return {
    fullName: invite.fullName,
    inviterName: invite.inviterName,
    groupName: invite.familyName,
    email: invite.email,
    temporaryPassword: invite.temporaryPassword,
    setupUrl: invite.setupUrl,
  };
}

/** The account-setup link of the app at `appUrl`. */
export function setupUrl(appUrl: string): string {
  return new URL('/account/setup', appUrl).toString();
}
