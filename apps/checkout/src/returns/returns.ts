import { enqueueEvent } from '@pasar/bus';
import { checkoutReturnRequested, type CreateReturnBody, type EventData, type ListQuery } from '@pasar/contracts';
import { badRequest, conflict, notFound } from '@pasar/service-kit';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { CHECKOUT_SOURCE } from '../lifecycle/order-events';
import { lockOrder } from '../lifecycle/order-paid';
import { findReturns, type LoadedReturn } from './read';
import { checkReturnItems } from './rules';

/** What the customer's return use cases need. */
export interface ReturnDeps {
  prisma: PrismaClient;
}

/**
 * Opens a return (status requested) and answers its id. The order must be the caller's (404
 * otherwise) and delivered (400 `order_not_delivered`); every item must be an item of that order
 * (400 `item_not_in_order`), all of one store (400 `multiple_stores`), of a delivered sub-order
 * (400 `item_not_delivered`: its shipment was cancelled), and in no other return that was not
 * rejected (409 `return_exists`). The order row is locked, so concurrent returns of one order take
 * turns and the check holds; the partial unique index return_item_one_active guards it as well.
 * The items keep the order item's own product name. `checkout.return.requested` (the store's
 * webhooks) is written to the outbox in the same transaction.
 */
export async function createReturn({ prisma }: ReturnDeps, customerId: string, body: CreateReturnBody): Promise<string> {
  return prisma.$transaction(async (tx) => {
    const order = await lockOrder(tx, body.orderId);
    if (!order || order.customerId !== customerId) throw notFound('order');
    if (order.status !== 'delivered') throw badRequest('order_not_delivered', `the order is ${order.status}; only a delivered order can be returned`);

    const ids = body.items.map((item) => item.orderItemId);
    const orderItems = await tx.orderItem.findMany({
      where: { orderId: order.id, id: { in: ids } },
      select: { id: true, storeId: true, subOrderId: true, productId: true, variantId: true, productName: true, variantName: true, quantity: true, unitPrice: true, lineTotal: true },
      orderBy: { createdAt: 'asc' },
    });
    const check = checkReturnItems(ids, orderItems);
    if (!check.ok) throw badRequest(check.code, check.detail);
    const subOrder = await tx.subOrder.findUnique({ where: { id: check.subOrderId }, select: { status: true } });
    if (subOrder?.status !== 'delivered') throw badRequest('item_not_delivered', 'the shipment of these items was not delivered');

    const taken = await tx.returnItem.findMany({ where: { orderItemId: { in: ids }, active: true }, select: { orderItemId: true } });
    if (taken.length > 0) {
      throw conflict('return_exists', `already in an open return: ${taken.map((t) => t.orderItemId).join(', ')}`);
    }
    const created = await tx.returnRequest.create({
      data: {
        orderId: order.id,
        subOrderId: check.subOrderId,
        customerId,
        storeId: check.storeId,
        reason: body.reason,
        comment: body.comment || null,
        evidencePaths: body.evidencePaths,
        items: { create: orderItems.map((item) => ({ orderItemId: item.id, productName: item.productName })) },
      },
      select: { id: true, createdAt: true },
    });
    await enqueueEvent(tx, checkoutReturnRequested, returnRequestedData(created, order.id, check, body, orderItems), { source: CHECKOUT_SOURCE });
    return created.id;
  });
}

interface ReturnedItem { id: string; productId: string; variantId: string | null; productName: string; variantName: string | null; quantity: number; unitPrice: Prisma.Decimal; lineTotal: Prisma.Decimal }

/** The event's data: what the store's vendor reads of the return (no customer id, e-mail or token). */
function returnRequestedData(
  created: { id: string; createdAt: Date },
  orderId: string,
  where: { subOrderId: string; storeId: string },
  body: CreateReturnBody,
  items: ReturnedItem[],
): EventData<typeof checkoutReturnRequested> {
  return {
    returnId: created.id,
    orderId,
    subOrderId: where.subOrderId,
    storeId: where.storeId,
    reason: body.reason,
    comment: body.comment || null,
    items: items.map((item) => ({
      orderItemId: item.id,
      productId: item.productId,
      variantId: item.variantId,
      productName: item.productName,
      variantName: item.variantName,
      quantity: item.quantity,
      unitPrice: item.unitPrice.toFixed(2),
      lineTotal: item.lineTotal.toFixed(2),
    })),
    amount: items.reduce((sum, item) => sum.plus(item.lineTotal), new Prisma.Decimal(0)).toFixed(2),
    requestedAt: created.createdAt.toISOString(),
  };
}

/** One page of the caller's returns, newest first. */
export function listReturns({ prisma }: ReturnDeps, customerId: string, page: ListQuery): Promise<LoadedReturn[]> {
  return findReturns(prisma, { customerId }, page);
}

/** One of the caller's returns; another customer's is as unknown as a missing one. */
export async function findReturn({ prisma }: ReturnDeps, customerId: string, returnId: string): Promise<LoadedReturn> {
  const [found] = await findReturns(prisma, { id: returnId, customerId });
  if (!found) throw notFound('return');
  return found;
}
