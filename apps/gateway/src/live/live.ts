import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { callRpc, type Bus } from '@pasar/bus';
import { vendorStoreOfOwner } from '@pasar/contracts';
import { API_PREFIX, EMPTY_BODY_SHA256, signIdentityHeaders, type Identity } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { ResolvedSession } from '../auth/session-cache';
import type { Upstream } from '../proxy/route-table';
import type { FeedMessage, LiveFeed } from './feed';
import { FEED_EVENTS, FEED_STREAMS, isFinalOrderStatus, parseEventId, planResume, type Position } from './rules';
import { LiveStream, type LiveStreamLimits, type LiveStreamRegistry } from './streams';

/** What a live stream follows (the path it was opened on). */
export type LiveTarget = { kind: 'order'; orderId: string } | { kind: 'vendor' } | { kind: 'b2b'; companyId: string };

export interface LiveDeps {
  feed: LiveFeed;
  registry: LiveStreamRegistry;
  bus: Bus;
  log: Logger;
  identitySecret: string;
  upstreamTimeoutMs: number;
  maxReplay: number;
  limits: LiveStreamLimits;
  /** The base URL of an instance of `upstream` (the proxy's rotation). */
  instanceOf: (upstream: Upstream) => string;
}

/** An answer given instead of a stream (problem+json), before anything was streamed. */
export interface Refused {
  status: number;
  body: Record<string, unknown>;
}

/** What a stream follows, and how it learns the current state. */
interface Subject {
  /** The feed keys to listen on before the state is read. */
  keys: string[];
  /** The current state from the owning service (its refusal passes on); may name more keys to listen on. */
  load(): Promise<{ snapshot: unknown; moreKeys?: string[] } | Refused>;
  follows(message: FeedMessage): boolean;
  /** For a B2B company: whether an order the stream did not know is the company's (asked on a B2B event of an unknown order). */
  adopt?(orderId: string): Promise<boolean>;
  finished(snapshotOrEvent: { type?: string; data: unknown }): boolean;
}

const refused = (status: number, code: string, detail: string, requestId: string): Refused => ({
  status,
  body: { type: 'about:blank', title: code, status, detail, code, requestId },
});

/**
 * Opens a live stream for `identity` (a signed-in caller whose role the route checked): takes a
 * slot of the user's limit, asks the owning service for the current state (its refusal, such as
 * 404 for another customer's order, is the answer), then either replays what a `Last-Event-ID`
 * missed from JetStream or sends a fresh snapshot, then follows the feed. Answers the refusal
 * when there is no stream; once the stream is open, everything else happens on it.
 */
export async function openLiveStream(
  deps: LiveDeps,
  caller: { identity: Identity; session: ResolvedSession },
  target: LiveTarget,
  request: { headers: IncomingHttpHeaders; requestId: string },
  res: ServerResponse,
): Promise<Refused | undefined> {
  const { userId } = caller.identity;
  const slot = await deps.registry.reserve(userId);
  if (!slot) return refused(429, 'too_many_streams', 'this account has as many live streams open as it may; close one first', request.requestId);
  let handedOver = false;
  const pending: FeedMessage[] = [];
  let deliver: ((message: FeedMessage) => void) | undefined;
  const listening: (() => void)[] = [];
  const unlisten = () => listening.forEach((stop) => stop());
  const listener = (message: FeedMessage) => (deliver ? deliver(message) : pending.push(message));
  const listen = (keys: string[]) => listening.push(deps.feed.listen(keys, listener));
  try {
    const subject = await subjectOf(deps, caller.identity, target, request.requestId);
    if ('status' in subject) return subject;
    // listening first, then the streams' ends, then the state: whatever happens after the ends is heard
    listen(subject.keys);
    const bounds = await deps.feed.bounds();
    const lastEventId = request.headers['last-event-id'];
    const plan = planResume(parseEventId(typeof lastEventId === 'string' ? lastEventId : undefined), bounds, deps.maxReplay);
    const loaded = await subject.load();
    if ('status' in loaded) return loaded;
    if (loaded.moreKeys?.length) listen(loaded.moreKeys);

    const stream = new LiveStream(res, deps.limits, { userId, tokenHash: caller.session.tokenHash }, plan.kind === 'replay' ? plan.from : plan.at);
    deps.registry.attach(slot, stream);
    handedOver = true;
    stream.onClose((reason) => {
      unlisten();
      deps.log.debug({ reason, target: target.kind, userId }, 'live stream closed');
    });
    stream.open();
    if (stream.closed) return undefined; // the client left while the state was read
    deps.log.info({ target: target.kind, userId, resume: plan.kind === 'replay' ? 'replay' : plan.reason }, 'live stream opened');

    // catching up (the replay, then what was heard meanwhile) sends CHECKOUT's messages before
    // VENDOR's: a final order status met there ends the stream once both are caught up, or the
    // shipment events that led to it would be cut off
    let catchingUp = true;
    let finalMet = false;
    let adoptions: Promise<void> = Promise.resolve();
    const take = (message: FeedMessage) => {
      if (stream.closed || message.seq <= stream.position[message.stream]) return;
      if (!subject.follows(message)) {
        // adoptions one after another, in feed order: a later event's adoption finishing first
        // would move the stream's position past an earlier one (and drop it)
        if (subject.adopt && message.data.isB2b === true && typeof message.data.orderId === 'string') adoptions = adoptions.then(() => adoptThenSend(message));
        return;
      }
      send(message);
    };
    const send = (message: FeedMessage) => {
      const position: Position = { ...stream.position, [message.stream]: message.seq };
      stream.send(FEED_EVENTS[message.type].sse, publicDataOf(message), position);
      if (!subject.finished({ type: message.type, data: message.data })) return;
      if (catchingUp) finalMet = true;
      else stream.end({ reason: 'final_status' });
    };
    const adoptThenSend = async (message: FeedMessage) => {
      const orderId = message.data.orderId as string;
      if (!(await subject.adopt?.(orderId).catch(() => false))) return;
      listen([`order:${orderId}`]);
      take(message);
    };

    if (plan.kind === 'snapshot') {
      stream.send('snapshot', { resume: plan.reason, state: loaded.snapshot }, plan.at);
      if (subject.finished({ data: loaded.snapshot })) return void stream.end({ reason: 'final_status' });
    } else {
      await deps.feed.replay(plan.from, plan.to, take);
    }
    deliver = take;
    for (const message of pending.sort((a, b) => FEED_STREAMS.indexOf(a.stream) - FEED_STREAMS.indexOf(b.stream) || a.seq - b.seq)) take(message);
    pending.length = 0;
    catchingUp = false;
    if (finalMet) stream.end({ reason: 'final_status' });
    return undefined;
  } finally {
    if (!handedOver) {
      unlisten();
      deps.registry.release(slot);
    }
  }
}

/** What a client is shown of an event: its data without the customer's id. */
function publicDataOf(message: FeedMessage): Record<string, unknown> {
  const { customerId: _customer, ...data } = message.data;
  return data;
}

async function subjectOf(deps: LiveDeps, identity: Identity, target: LiveTarget, requestId: string): Promise<Subject | Refused> {
  if (target.kind === 'order') {
    return {
      keys: [`order:${target.orderId}`],
      load: async () => {
        const order = await upstreamGet(deps, 'checkout', `/account/orders/${target.orderId}`, identity, requestId);
        return 'status' in order ? order : { snapshot: order.body };
      },
      follows: (message) => message.data.orderId === target.orderId,
      finished: ({ type, data }) =>
        (type === undefined || type === 'checkout.order.status_changed') && isFinalOrderStatus((data as { status?: unknown }).status),
    };
  }
  if (target.kind === 'vendor') {
    let storeId: string | null;
    try {
      ({ storeId } = await callRpc(deps.bus, vendorStoreOfOwner, { ownerUserId: identity.userId }, { requestId }));
    } catch (err) {
      deps.log.warn({ err }, 'vendor did not say which store the vendor owns');
      return refused(503, 'service_unavailable', 'the vendor service is not reachable; try again', requestId);
    }
    if (!storeId) return refused(403, 'no_store', 'this vendor account has no store yet', requestId);
    return {
      keys: [`store:${storeId}`],
      load: async () => {
        const shipments = await upstreamGet(deps, 'vendor', '/vendor/shipments', identity, requestId);
        return 'status' in shipments ? shipments : { snapshot: shipments.body };
      },
      follows: (message) => message.type === 'vendor.shipment.status_changed' && message.data.storeId === storeId,
      finished: () => false,
    };
  }
  const path = `/b2b/${target.companyId}/orders`;
  const known = new Set<string>();
  const refresh = async (): Promise<{ snapshot: unknown } | Refused> => {
    const orders = await upstreamGet(deps, 'b2b', path, identity, requestId);
    if ('status' in orders) return orders;
    if (Array.isArray(orders.body)) for (const order of orders.body as { id: string }[]) known.add(order.id);
    return { snapshot: orders.body };
  };
  return {
    keys: ['b2b'],
    load: async () => {
      const loaded = await refresh();
      return 'status' in loaded ? loaded : { ...loaded, moreKeys: [...known].map((id) => `order:${id}`) };
    },
    follows: (message) => known.has(message.data.orderId as string),
    // the company's order list is the authority on which orders are its own
    adopt: async (orderId) => {
      await refresh();
      return known.has(orderId);
    },
    finished: () => false,
  };
}

/**
 * GET `path` (under /api/v1) from an instance of `upstream`, signed for `identity` like a proxied
 * request. A 2xx is the body; another answer is passed on as the refusal; no answer is 503/504.
 */
async function upstreamGet(
  deps: LiveDeps,
  upstream: Upstream,
  path: string,
  identity: Identity,
  requestId: string,
): Promise<{ body: unknown } | Refused> {
  const fullPath = `${API_PREFIX}${path}`;
  const headers = signIdentityHeaders(deps.identitySecret, { method: 'GET', path: fullPath, bodySha256: EMPTY_BODY_SHA256 }, identity, requestId);
  try {
    const response = await fetch(`${deps.instanceOf(upstream)}${fullPath}`, {
      headers: { ...headers, accept: 'application/json', 'x-request-id': requestId },
      signal: AbortSignal.timeout(deps.upstreamTimeoutMs),
    });
    const body = (await response.json()) as unknown;
    if (response.ok) return { body };
    return { status: response.status, body: body as Record<string, unknown> };
  } catch (err) {
    deps.log.warn({ err: (err as Error).message, upstream, path }, 'live stream snapshot failed');
    const timedOut = (err as Error).name === 'TimeoutError';
    return timedOut
      ? refused(504, 'upstream_timeout', `the ${upstream} service did not answer in time`, requestId)
      : refused(503, 'service_unavailable', `the ${upstream} service is not reachable; try again`, requestId);
  }
}
