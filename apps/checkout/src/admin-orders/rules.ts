import type { OrderTimelineEntry } from '@pasar/contracts';
import type { Refusal } from '@pasar/service-kit';

/** What the administrator's search box names. */
export type OrderQuery = { kind: 'id'; id: string } | { kind: 'short_id'; shortId: string } | { kind: 'email'; email: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `shortOrderId` (orders/rules.ts): PSR- and 8 characters of RFC 4648 base32. */
const SHORT_ID = /^PSR-[A-Z2-7]{8}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An order id, a short id (any case), or an e-mail (lower-cased, as identity keeps it); anything else is refused. */
export function orderQueryOf(q: string): OrderQuery | Refusal<'unusable_query'> {
  const text = q.trim();
  if (UUID.test(text)) return { kind: 'id', id: text.toLowerCase() };
  if (SHORT_ID.test(text)) return { kind: 'short_id', shortId: text.toUpperCase() };
  if (EMAIL.test(text)) return { kind: 'email', email: text.toLowerCase() };
  return { ok: false, code: 'unusable_query', detail: 'search by a short id (PSR-XXXXXXXX), an order id or an e-mail address' };
}

/** The rows an order's timeline is made of: what checkout keeps (not its pruned outbox). */
export interface TimelineFacts {
  order: { createdAt: Date; paidAt: Date | null; status: string; expiresAt: Date; updatedAt: Date };
  notifications: { transactionId: string; status: string; verified: boolean; receivedAt: Date }[];
  subOrders: { id: string; storeName: string | null; shippedAt: Date | null; deliveredAt: Date | null; cancelledAt: Date | null; courier: string | null; trackingId: string | null }[];
  returns: { id: string; status: string; reason: string; createdAt: Date; vendorReviewedAt: Date | null; receivedAt: Date | null; refundedAt: Date | null; refundAmount: string | null }[];
}

const store = (s: { id: string; storeName: string | null }) => s.storeName ?? `store of sub-order ${s.id.slice(0, 8)}`;

/** The order's events, oldest first (same time: in the order the facts happen). */
export function orderTimeline(facts: TimelineFacts): OrderTimelineEntry[] {
  const entries: { at: Date; rank: number; entry: Omit<OrderTimelineEntry, 'at'> }[] = [];
  const add = (at: Date | null, rank: number, entry: Omit<OrderTimelineEntry, 'at'>) => {
    if (at) entries.push({ at, rank, entry });
  };
  add(facts.order.createdAt, 0, { kind: 'order_placed', subject: null, detail: 'order placed' });
  for (const n of facts.notifications) {
    const verdict = n.verified ? 'verified' : 'NOT verified';
    add(n.receivedAt, 1, { kind: 'payment_notification', subject: n.transactionId, detail: `payment notification ${n.status} (${verdict})` });
  }
  add(facts.order.paidAt, 2, { kind: 'order_paid', subject: null, detail: 'order paid' });
  if (facts.order.status === 'expired') add(facts.order.updatedAt, 2, { kind: 'order_expired', subject: null, detail: 'unpaid order expired' });
  for (const s of facts.subOrders) {
    const tracking = s.trackingId ? ` (${s.courier ?? 'courier'} ${s.trackingId})` : '';
    add(s.shippedAt, 3, { kind: 'sub_order_shipped', subject: s.id, detail: `${store(s)}: shipped${tracking}` });
    add(s.deliveredAt, 4, { kind: 'sub_order_delivered', subject: s.id, detail: `${store(s)}: delivered` });
    add(s.cancelledAt, 4, { kind: 'sub_order_cancelled', subject: s.id, detail: `${store(s)}: cancelled` });
  }
  for (const r of facts.returns) {
    add(r.createdAt, 5, { kind: 'return_requested', subject: r.id, detail: `return requested (${r.reason})` });
    add(r.vendorReviewedAt, 6, { kind: 'return_reviewed', subject: r.id, detail: `return ${r.status === 'rejected' ? 'rejected' : 'approved'} by the store` });
    add(r.receivedAt, 7, { kind: 'return_received', subject: r.id, detail: 'returned goods received' });
    add(r.refundedAt, 8, { kind: 'return_refunded', subject: r.id, detail: `refunded${r.refundAmount ? ` MYR ${r.refundAmount}` : ''}` });
  }
  entries.sort((a, b) => a.at.getTime() - b.at.getTime() || a.rank - b.rank);
  return entries.map(({ at, entry }) => ({ at: at.toISOString(), ...entry }));
}
