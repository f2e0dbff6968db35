import { MAX_ADDRESSES_PER_CUSTOMER } from '@pasar/contracts';

/** What the address rules look at. */
export interface RankedAddress {
  id: string;
  isDefault: boolean;
  createdAt: Date;
}

/** Newest first; the id breaks a tie so the order is the same every time. */
export function newestFirst(a: RankedAddress, b: RankedAddress): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The order GET /account/addresses answers in: the default first, then newest first. */
export function listingOrder(a: RankedAddress, b: RankedAddress): number {
  if (a.isDefault !== b.isDefault) return a.isDefault ? -1 : 1;
  return newestFirst(a, b);
}

/** A customer may add an address while they keep fewer than the limit. */
export function hasRoomForAnother(existingCount: number, limit = MAX_ADDRESSES_PER_CUSTOMER): boolean {
  return existingCount < limit;
}

/** A new address is the default when it is the customer's first, or when the request asks for it. */
export function isDefaultOnCreate(existingCount: number, requested: boolean | undefined): boolean {
  return existingCount === 0 || requested === true;
}

/**
 * Whether an edited address is the default afterwards: `is_default: true` makes it so; false or
 * absent leaves it as it was (an address stops being the default only when another one becomes it,
 * so a customer with addresses always has exactly one default).
 */
export function isDefaultAfterUpdate(currentlyDefault: boolean, requested: boolean | undefined): boolean {
  return currentlyDefault || requested === true;
}

/** When the default is deleted, the newest remaining address takes its place (none left: none). */
export function successorOfDeletedDefault<T extends RankedAddress>(remaining: readonly T[]): T | undefined {
  return [...remaining].sort(newestFirst)[0];
}
