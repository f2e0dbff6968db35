import { pageQuery, type LoyaltyBalance, type LoyaltyResponse } from '@pasar/contracts';
import { parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import { loyaltyBalance, loyaltyPage, type LoyaltyDeps } from './loyalty';

/** GET /account/loyalty (page 1..10000, 20 per page), GET /account/loyalty-balance. */
export function loyaltyRoutes(router: Router, deps: LoyaltyDeps): void {
  router.get('/account/loyalty', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { page } = parse(pageQuery, req.query);
    const { account, transactions, totalPages } = await loyaltyPage(deps, userId, page);
    const body: LoyaltyResponse = {
      balance: account.balance,
      totalEarned: account.totalEarned,
      totalRedeemed: account.totalRedeemed,
      transactions: transactions.map((t) => ({
        id: t.id,
        type: t.type,
        points: t.points,
        order_id: t.orderId,
        created_at: t.createdAt.toISOString(),
      })),
      totalPages,
    };
    res.json(body);
  });

  router.get('/account/loyalty-balance', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const body: LoyaltyBalance = { balance: await loyaltyBalance(deps, userId) };
    res.json(body);
  });
}
