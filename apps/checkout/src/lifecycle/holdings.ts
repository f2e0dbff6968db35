import type { Prisma } from '../generated/prisma/client';
import { creditPoints } from '../loyalty/ledger';
import { holdingsToRelease, stockToRelease, type HeldItem, type StockRelease } from './rules';

type Tx = Prisma.TransactionClient;

/** Puts the items' quantities back on their variant (or product) rows, in a fixed row order. */
export function releaseStock(tx: Tx, items: readonly HeldItem[]): Promise<void> {
  return putBackStock(tx, stockToRelease(items));
}

async function putBackStock(tx: Tx, rows: readonly StockRelease[]): Promise<void> {
  for (const row of rows) {
    if (row.kind === 'variant') {
      await tx.productVariant.updateMany({ where: { id: row.id }, data: { stock: { increment: row.quantity } } });
    } else {
      await tx.product.updateMany({ where: { id: row.id }, data: { stock: { increment: row.quantity } } });
    }
  }
}

/**
 * Releases everything unpaid orders hold (DESIGN §5): their items' stock, one voucher use and
 * one KOL use each, and the points they redeemed (loyalty `release`). The caller has claimed the
 * orders (moved them out of pending_payment in this transaction), which makes this happen once.
 */
export async function releaseOrderHoldings(tx: Tx, orderIds: readonly string[]): Promise<void> {
  if (orderIds.length === 0) return;
  const ids = [...orderIds];
  const orders = await tx.order.findMany({
    where: { id: { in: ids } },
    select: { id: true, customerId: true, voucherId: true, kolCodeId: true, pointsRedeemed: true },
  });
  const items = await tx.orderItem.findMany({ where: { orderId: { in: ids } }, select: { productId: true, variantId: true, quantity: true } });
  const holdings = holdingsToRelease(orders, items);
  await putBackStock(tx, holdings.stock);
  for (const voucher of holdings.vouchers) {
    await tx.$executeRaw`UPDATE voucher SET used_count = GREATEST(used_count - ${voucher.uses}, 0), updated_at = now() WHERE id = ${voucher.id}::uuid`;
  }
  for (const entry of holdings.points) await creditPoints(tx, 'release', entry);
  for (const kol of holdings.kolCodes) {
    await tx.$executeRaw`UPDATE kol_code SET used_count = GREATEST(used_count - ${kol.uses}, 0), updated_at = now() WHERE id = ${kol.id}::uuid`;
  }
}
