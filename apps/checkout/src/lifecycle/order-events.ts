import { enqueueEvents } from '@pasar/bus';
import { checkoutOrderStatusChanged, type OrderStatus } from '@pasar/contracts';
import type { Prisma } from '../generated/prisma/client';

/** The event source of everything checkout publishes. */
export const CHECKOUT_SOURCE = 'checkout';

/** A parent order that moved. */
export interface OrderStatusChange {
  orderId: string;
  isB2b: boolean;
  /** The buying company of a B2B order, null for any other (checkout.order.status_changed carries it). */
  companyId: string | null;
  previousStatus: OrderStatus;
  status: OrderStatus;
}

/** Writes `checkout.order.status_changed` for each change to the outbox, in the caller's transaction. */
export async function enqueueOrderStatusChanges(
  tx: Prisma.TransactionClient,
  changes: readonly OrderStatusChange[],
  changedAt: Date,
  requestId?: string,
): Promise<void> {
  await enqueueEvents(
    tx,
    checkoutOrderStatusChanged,
    changes.map((c) => ({ ...c, changedAt: changedAt.toISOString() })),
    { source: CHECKOUT_SOURCE, requestId, occurredAt: changedAt },
  );
}
