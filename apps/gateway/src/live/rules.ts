/**
 * Live order tracking (server-sent events): the pure rules. What a stream follows, how an event
 * id is written and read back, when a resume replays from JetStream and when it starts over with
 * a fresh snapshot, and when a stream ends.
 */

/** The JetStream streams a live stream reads, in the order of the parts of an event id. */
export const FEED_STREAMS = ['CHECKOUT', 'VENDOR'] as const;
export type FeedStream = (typeof FEED_STREAMS)[number];

/** The event types the gateway follows, the stream each is on, and its SSE event name. */
export const FEED_EVENTS = {
  'checkout.order.paid': { stream: 'CHECKOUT', sse: 'payment' },
  'checkout.order.status_changed': { stream: 'CHECKOUT', sse: 'order.status' },
  'vendor.shipment.status_changed': { stream: 'VENDOR', sse: 'shipment.status' },
} as const satisfies Record<string, { stream: FeedStream; sse: string }>;
export type FeedEventType = keyof typeof FEED_EVENTS;
export type SseEventName = (typeof FEED_EVENTS)[FeedEventType]['sse'];

/**
 * The one subject filter per stream that takes in its followed events (a single filter: NATS
 * servers before 2.10 know no list). `checkout.order.*` also takes other one-token order events,
 * which the feed skips by type.
 */
export const FEED_FILTERS: Record<FeedStream, string> = {
  CHECKOUT: 'checkout.order.*',
  VENDOR: 'vendor.shipment.status_changed',
};

export function isFeedEventType(type: string): type is FeedEventType {
  return Object.hasOwn(FEED_EVENTS, type);
}

/**
 * Where a stream stands: per JetStream stream, the sequence of the last message it accounted for.
 * Written as the event id `<checkout seq>-<vendor seq>`: each part only grows, so an id names
 * exactly what the client has seen of both streams.
 */
export type Position = Record<FeedStream, number>;

export function formatEventId(position: Position): string {
  return FEED_STREAMS.map((stream) => String(position[stream])).join('-');
}

/** The position a `Last-Event-ID` names, or undefined when it is not one of ours (it is then ignored). */
export function parseEventId(text: string | undefined): Position | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(text.trim());
  if (!match) return undefined;
  return { CHECKOUT: Number(match[1]), VENDOR: Number(match[2]) };
}

/** A stream's bounds right now (JetStream's first and last sequence). */
export interface StreamBounds {
  firstSeq: number;
  lastSeq: number;
}

export type ResumePlan =
  | { kind: 'replay'; from: Position; to: Position }
  | { kind: 'snapshot'; reason: 'no_last_event_id' | 'gap_pruned' | 'gap_too_long' | 'id_ahead'; at: Position };

/**
 * How a (re)connecting client catches up. With a `Last-Event-ID` whose messages are all still in
 * JetStream and no more than `maxReplay` behind: replay them (no gap, no duplicate). Otherwise a
 * fresh snapshot taken at the streams' current ends: when the gap was pruned (older than the
 * streams keep), too long to replay, or the id is ahead of the streams (they were recreated).
 */
export function planResume(lastEventId: Position | undefined, bounds: Record<FeedStream, StreamBounds>, maxReplay: number): ResumePlan {
  const at = Object.fromEntries(FEED_STREAMS.map((s) => [s, bounds[s].lastSeq])) as Position;
  if (!lastEventId) return { kind: 'snapshot', reason: 'no_last_event_id', at };
  let behind = 0;
  for (const stream of FEED_STREAMS) {
    const seen = lastEventId[stream];
    const { firstSeq, lastSeq } = bounds[stream];
    if (seen > lastSeq) return { kind: 'snapshot', reason: 'id_ahead', at };
    // the first message not yet seen must still be there (an empty stream has first = last + 1)
    if (seen < lastSeq && seen + 1 < firstSeq) return { kind: 'snapshot', reason: 'gap_pruned', at };
    behind += lastSeq - seen;
  }
  if (behind > maxReplay) return { kind: 'snapshot', reason: 'gap_too_long', at };
  return { kind: 'replay', from: lastEventId, to: at };
}

/** Parent order statuses after which nothing more happens to the order: the stream ends. */
const FINAL_ORDER_STATUSES = new Set(['delivered', 'cancelled', 'expired']);

export function isFinalOrderStatus(status: unknown): boolean {
  return typeof status === 'string' && FINAL_ORDER_STATUSES.has(status);
}

/** One server-sent event as written on the wire (`data` is one JSON line). */
export function sseFrame(event: string, id: string | undefined, data: unknown): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** The first bytes of every stream: the client's reconnection delay. */
export const SSE_PREAMBLE = 'retry: 3000\n\n';
export const SSE_HEARTBEAT = ':\n\n';

/**
 * The fan-out keys of what a live event concerns: its order, (shipments) its store, and (B2B
 * orders) its company, `b2b:<companyId>`, or `b2b` when the event does not name it (a checkout
 * from before events carried it): every company's stream listens there.
 */
export function keysOf(type: FeedEventType, data: Record<string, unknown>): string[] {
  const keys = typeof data.orderId === 'string' ? [`order:${data.orderId}`] : [];
  if (type === 'vendor.shipment.status_changed' && typeof data.storeId === 'string') keys.push(`store:${data.storeId}`);
  if (data.isB2b === true) keys.push(typeof data.companyId === 'string' ? b2bKeyOf(data.companyId) : B2B_UNNAMED_KEY);
  return keys;
}

/** The fan-out key of one company's B2B orders. */
export const b2bKeyOf = (companyId: string): string => `b2b:${companyId.toLowerCase()}`;

/** The fan-out key of B2B events that name no company. */
export const B2B_UNNAMED_KEY = 'b2b';

/**
 * Whose a B2B order event says its order is, seen from `companyId`'s stream: `this` company's or
 * `another`'s when the event names one, `unknown` when it does not (a B2B order placed before
 * checkout recorded its company, or an event from an older checkout): only b2b can say then.
 */
export function b2bOrderOwner(data: Record<string, unknown>, companyId: string): 'this' | 'another' | 'unknown' {
  if (typeof data.companyId !== 'string') return 'unknown';
  return data.companyId.toLowerCase() === companyId.toLowerCase() ? 'this' : 'another';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A live stream path under /api/v1, its id checked (`malformed`: the id is no UUID). */
export type LivePath =
  | { kind: 'order'; orderId: string }
  | { kind: 'vendor' }
  | { kind: 'b2b'; companyId: string }
  | { kind: 'malformed'; detail: string };

/** The live stream a path names, or undefined for any other path. */
export function livePathOf(path: string): LivePath | undefined {
  const parts = path.split('/');
  // ['', 'account', 'orders', id, 'events'], ['', 'vendor', 'shipments', 'events'], ['', 'b2b', companyId, 'orders', 'events']
  if (parts.length === 5 && parts[1] === 'account' && parts[2] === 'orders' && parts[4] === 'events') {
    return UUID.test(parts[3]) ? { kind: 'order', orderId: parts[3].toLowerCase() } : { kind: 'malformed', detail: 'the order id is not a UUID' };
  }
  if (parts.length === 4 && parts[1] === 'vendor' && parts[2] === 'shipments' && parts[3] === 'events') return { kind: 'vendor' };
  if (parts.length === 5 && parts[1] === 'b2b' && parts[3] === 'orders' && parts[4] === 'events') {
    return UUID.test(parts[2]) ? { kind: 'b2b', companyId: parts[2].toLowerCase() } : { kind: 'malformed', detail: 'the company id is not a UUID' };
  }
  return undefined;
}
