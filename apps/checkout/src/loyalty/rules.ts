import { Prisma } from '../generated/prisma/client';

type Decimal = Prisma.Decimal;

/** Loyalty transactions per page of GET /account/loyalty. */
export const LOYALTY_PAGE_SIZE = 20;
/** 100 points are worth MYR 1.00. */
export const POINTS_PER_MYR = 100;
/** Points pay for at most this share of the subtotal. */
export const MAX_REDEEMABLE_SHARE = new Prisma.Decimal('0.5');

/**
 * The most points an account holds (balance and total earned): the ledger's int columns stop
 * well short of overflowing; a credit past it is cut to what fits (a payment never fails on it).
 */
export const MAX_POINTS_BALANCE = 2_000_000_000;

/** How many of `points` an account holding `balance` can still be credited (never negative). */
export function creditablePoints(balance: number, points: number): number {
  return Math.max(0, Math.min(points, MAX_POINTS_BALANCE - balance));
}

/** What `points` are worth in MYR. */
export function pointsValue(points: number): Decimal {
  return new Prisma.Decimal(points).div(POINTS_PER_MYR).toDecimalPlaces(2, Prisma.Decimal.ROUND_DOWN);
}

/**
 * The most points an order may redeem: worth at most 50% of its subtotal, and never more than
 * what is left to pay (`payable`: the subtotal after the other discounts).
 */
export function maxRedeemablePoints(subtotal: Decimal, payable: Decimal): number {
  const cap = Prisma.Decimal.max(0, Prisma.Decimal.min(subtotal.mul(MAX_REDEEMABLE_SHARE), payable));
  return cap.mul(POINTS_PER_MYR).floor().toNumber();
}
