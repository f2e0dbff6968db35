import type { SubOrderStatus } from '@pasar/contracts';

/** What moves a shipment (sub-order), DESIGN §5: vendor actions, checkout's payment, admin's booking. */
export type ShipmentAction = 'pay' | 'process' | 'ship' | 'deliver' | 'cancel' | 'book' | 'close';

interface Transition {
  from: readonly SubOrderStatus[];
  to: SubOrderStatus;
}

/**
 * The state machine. Ship is allowed again from shipped (a re-ship corrects tracking). Deliver is
 * refused from delivered and cancelled (DESIGN §5) and also from pending_payment: an unpaid
 * sub-order is never handed over (DESIGN leaves it open; delivering unpaid goods is a loss).
 */
export const TRANSITIONS: Record<ShipmentAction, Transition> = {
  pay: { from: ['pending_payment'], to: 'paid' },
  process: { from: ['paid'], to: 'processing' },
  ship: { from: ['paid', 'processing', 'awaiting_pickup', 'shipped'], to: 'shipped' },
  deliver: { from: ['paid', 'processing', 'awaiting_pickup', 'shipped'], to: 'delivered' },
  cancel: { from: ['paid', 'processing'], to: 'cancelled' },
  book: { from: ['paid', 'processing'], to: 'awaiting_pickup' },
  /** checkout closed the order unpaid (expired, payment failed): nothing to ship, ever. Not a vendor action. */
  close: { from: ['pending_payment'], to: 'cancelled' },
};

export function canApply(action: ShipmentAction, status: SubOrderStatus): boolean {
  return TRANSITIONS[action].from.includes(status);
}

/** How a refused vendor action answers: cancel 400 (spec), the others 409; deliver twice is `already_delivered`. */
export function refusalOf(action: ShipmentAction, status: SubOrderStatus): { status: 400 | 409; code: string; detail: string } {
  const detail = `cannot ${action} a shipment that is ${status}`;
  if (action === 'cancel') return { status: 400, code: 'invalid_status', detail: `${detail}; only paid or processing shipments can be cancelled` };
  if (action === 'deliver' && status === 'delivered') return { status: 409, code: 'already_delivered', detail: 'the shipment is already delivered' };
  return { status: 409, code: 'invalid_status', detail };
}

export type Courier = 'carrier_a' | 'carrier_b' | 'other';
export type TrackingTemplates = Record<'carrier_a' | 'carrier_b', string>;

/**
 * The tracking URL of a shipment: the one given, else the courier's template with `{trackingId}`
 * filled in (URL-encoded). `other` has no template: null means the caller must supply one.
 */
export function trackingUrlFor(courier: Courier, trackingId: string, given: string | null | undefined, templates: TrackingTemplates): string | null {
  if (given) return given;
  if (courier === 'other') return null;
  return templates[courier].split('{trackingId}').join(encodeURIComponent(trackingId));
}

/** Pages of `size`: how many there are for `total` rows (at least 1). */
export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}
