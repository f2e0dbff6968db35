import { listWindow, type ListQuery } from '@pasar/contracts';
import type { Prisma, PrismaClient, ReturnItem, ReturnRequest } from '../generated/prisma/client';

/** A return with its items and the creation time of its order (the Return request shows it). */
export type LoadedReturn = ReturnRequest & { items: ReturnItem[]; orderCreatedAt: Date };

/**
 * The returns matching `where`, newest first (one page of them when `page` is given), with their
 * items (by product name) and their orders' creation times.
 */
export async function findReturns(prisma: PrismaClient, where: Prisma.ReturnRequestWhereInput, page?: ListQuery): Promise<LoadedReturn[]> {
  const returns = await prisma.returnRequest.findMany({
    where,
    ...(page ? listWindow(page) : {}),
    include: { items: { orderBy: [{ productName: 'asc' }, { orderItemId: 'asc' }] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  if (returns.length === 0) return [];
  const orders = await prisma.order.findMany({ where: { id: { in: [...new Set(returns.map((r) => r.orderId))] } }, select: { id: true, createdAt: true } });
  const orderCreatedAt = new Map(orders.map((o) => [o.id, o.createdAt]));
  return returns.flatMap((r) => {
    const createdAt = orderCreatedAt.get(r.orderId);
    return createdAt ? [{ ...r, orderCreatedAt: createdAt }] : [];
  });
}
