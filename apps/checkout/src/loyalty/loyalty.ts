import type { LoyaltyAccount, LoyaltyTransaction, PrismaClient } from '../generated/prisma/client';
import { pageCount } from '../catalog/rules';
import { LOYALTY_PAGE_SIZE } from './rules';

export interface LoyaltyDeps {
  prisma: PrismaClient;
}

/** The account as GET /account/loyalty shows it; a customer without one has zeros (created on the first change). */
export type LoyaltyTotals = Pick<LoyaltyAccount, 'balance' | 'totalEarned' | 'totalRedeemed'>;

export interface LoyaltyPage {
  account: LoyaltyTotals;
  transactions: LoyaltyTransaction[];
  totalPages: number;
}

const NO_ACCOUNT: LoyaltyTotals = { balance: 0, totalEarned: 0, totalRedeemed: 0 };

/** The caller's account and one page of transactions, newest first. */
export async function loyaltyPage({ prisma }: LoyaltyDeps, customerId: string, page: number): Promise<LoyaltyPage> {
  const [account, transactions, total] = await Promise.all([
    prisma.loyaltyAccount.findUnique({ where: { customerId } }),
    prisma.loyaltyTransaction.findMany({
      where: { customerId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * LOYALTY_PAGE_SIZE,
      take: LOYALTY_PAGE_SIZE,
    }),
    prisma.loyaltyTransaction.count({ where: { customerId } }),
  ]);
  return { account: account ?? NO_ACCOUNT, transactions, totalPages: pageCount(total, LOYALTY_PAGE_SIZE) };
}

export async function loyaltyBalance({ prisma }: LoyaltyDeps, customerId: string): Promise<number> {
  const account = await prisma.loyaltyAccount.findUnique({ where: { customerId }, select: { balance: true } });
  return account?.balance ?? 0;
}
