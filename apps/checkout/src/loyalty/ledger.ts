import type { Prisma } from '../generated/prisma/client';
import { MAX_POINTS_BALANCE, creditablePoints } from './rules';

type Tx = Prisma.TransactionClient;

// The points ledger: every change of a loyalty account goes through these, in the caller's transaction.

/** Where a ledger entry comes from. */
export interface PointsEntry {
  customerId: string;
  points: number;
  orderId: string;
  subOrderId?: string | null;
}

/**
 * Credits points (DESIGN §7): `earn` on payment (also counted in total_earned) or `release` of
 * points an unpaid order had redeemed (taken off total_redeemed). The ledger row carries the
 * signed change of the balance.
 */
export async function creditPoints(tx: Tx, type: 'earn' | 'release', entry: PointsEntry): Promise<void> {
  if (entry.points <= 0) return;
  // the account row is locked first, so the credit is cut to what the balance can still hold
  const [account] = await tx.$queryRaw<{ balance: number }[]>`
    SELECT balance FROM loyalty_account WHERE customer_id = ${entry.customerId}::uuid FOR UPDATE`;
  const points = creditablePoints(account?.balance ?? 0, entry.points);
  if (points <= 0) return;
  const earned = type === 'earn' ? points : 0;
  const unredeemed = type === 'release' ? points : 0;
  // LEAST also caps two first credits of a new account racing past the SELECT above
  await tx.$executeRaw`
    INSERT INTO loyalty_account (customer_id, balance, total_earned, total_redeemed, updated_at)
    VALUES (${entry.customerId}::uuid, ${points}, ${earned}, 0, now())
    ON CONFLICT (customer_id) DO UPDATE SET
      balance = LEAST(loyalty_account.balance::bigint + EXCLUDED.balance, ${MAX_POINTS_BALANCE})::int,
      total_earned = LEAST(loyalty_account.total_earned::bigint + EXCLUDED.total_earned, ${MAX_POINTS_BALANCE})::int,
      total_redeemed = GREATEST(loyalty_account.total_redeemed - ${unredeemed}, 0),
      updated_at = now()`;
  await tx.loyaltyTransaction.create({
    data: { customerId: entry.customerId, type, points, orderId: entry.orderId, subOrderId: entry.subOrderId ?? null },
  });
}

/**
 * Takes back earned points (`reversal`) without going below zero: when the balance holds fewer
 * than due (the customer spent them), takes what is there. Records the points actually taken
 * (as a negative change) and answers them.
 */
export async function reversePoints(tx: Tx, entry: PointsEntry): Promise<number> {
  if (entry.points <= 0) return 0;
  const [account] = await tx.$queryRaw<{ balance: number }[]>`
    SELECT balance FROM loyalty_account WHERE customer_id = ${entry.customerId}::uuid FOR UPDATE`;
  const taken = Math.min(entry.points, account?.balance ?? 0);
  if (taken > 0) {
    await tx.$executeRaw`
      UPDATE loyalty_account
      SET balance = balance - ${taken}, total_earned = GREATEST(total_earned - ${taken}, 0), updated_at = now()
      WHERE customer_id = ${entry.customerId}::uuid`;
  }
  await tx.loyaltyTransaction.create({
    data: { customerId: entry.customerId, type: 'reversal', points: -taken, orderId: entry.orderId, subOrderId: entry.subOrderId ?? null },
  });
  return taken;
}

/**
 * Debits redeemed points inside the submit's transaction with one conditional update (the balance
 * never goes below zero, under any concurrency) and records a `redeem` transaction (negative
 * points). Answers false, writing nothing, when the balance does not cover them.
 */
export async function redeemPoints(tx: Tx, redemption: { customerId: string; points: number; orderId: string }): Promise<boolean> {
  const { customerId, points, orderId } = redemption;
  const debited = await tx.$executeRaw`
    UPDATE loyalty_account
    SET balance = balance - ${points}::int, total_redeemed = total_redeemed + ${points}::int, updated_at = now()
    WHERE customer_id = ${customerId}::uuid AND balance >= ${points}::int`;
  if (debited !== 1) return false;
  await tx.loyaltyTransaction.create({ data: { customerId, type: 'redeem', points: -points, orderId } });
  return true;
}
