import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { callRpc, type Bus } from '@pasar/bus';
import { vendorStoreOfOwner } from '@pasar/contracts';
import { API_PREFIX, EMPTY_BODY_SHA256, signIdentityHeaders, startHttpClientSpan, type Identity } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { ResolvedSession } from '../auth/session-cache';
import type { Upstream } from '../proxy/route-table';
import type { FeedListener, FeedMessage, LiveFeed } from './feed';
import { B2B_UNNAMED_KEY, b2bKeyOf, b2bOrderOwner, FEED_EVENTS, FEED_STREAMS, isFinalOrderStatus, parseEventId, planResume, type Position } from './rules';
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

/**
 * The answer to a client that reconnects to a finished stream having missed nothing (its
 * `Last-Event-ID` is the `end` event's): 204 No Content, which makes an EventSource stop
 * reconnecting (HTML, server-sent events); a stream would stay empty until the idle close, and an
 * `end` again would be followed by another reconnect.
 */
export const NOTHING_MORE = { status: 204 } as const;

/** What a stream follows, and how it learns the current state. */
interface Subject {
  /** The feed keys to listen on before the state is read. */
  readonly keys: string[];
  /** The current state from the owning service (its refusal passes on); may name more keys to listen on. */
  load(): Promise<{ snapshot: unknown; moreKeys?: string[] } | Refused>;
  follows(message: FeedMessage): boolean;
  /**
   * For a B2B company: whether the order of a B2B event the stream does not know yet is the
   * company's. The event says so when it names its company; one that does not (from a checkout
   * before events carried it) is answered by reading the company's orders again.
   */
  adopt?(message: FeedMessage): boolean | Promise<boolean>;
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
): Promise<Refused | typeof NOTHING_MORE | undefined> {
  const { userId } = caller.identity;
  const slot = await deps.registry.reserve(userId);
  if (!slot) return refused(429, 'too_many_streams', 'this account has as many live streams open as it may; close one first', request.requestId);
  let following: Following | undefined;
  let handedOver = false;
  try {
    const subject = await subjectOf(deps, caller.identity, target, request.requestId);
    if ('status' in subject) return subject;
    following = new Following(deps.feed, subject);
    // listening first, then the streams' ends, then the state: whatever happens after the ends is heard
    following.listen(subject.keys);
    const bounds = await deps.feed.bounds();
    const lastEventId = request.headers['last-event-id'];
    const plan = planResume(parseEventId(typeof lastEventId === 'string' ? lastEventId : undefined), bounds, deps.maxReplay);
    const loaded = await subject.load();
    if ('status' in loaded) return loaded;
    if (loaded.moreKeys?.length) following.listen(loaded.moreKeys);
    // a finished subject's gap is read before the stream opens: nothing of it missed, nothing more to come
    const missed = plan.kind === 'replay' && subject.finished({ data: loaded.snapshot }) ? await missedBy(deps.feed, subject, plan.from, plan.to) : undefined;
    if (missed?.length === 0) return NOTHING_MORE;

    const stream = new LiveStream(res, deps.limits, { userId, tokenHash: caller.session.tokenHash }, plan.kind === 'replay' ? plan.from : plan.at);
    deps.registry.attach(slot, stream);
    handedOver = true;
    const attached = following;
    attached.attach(stream);
    stream.onClose((reason) => {
      attached.stop();
      deps.log.debug({ reason, target: target.kind, userId }, 'live stream closed');
    });
    stream.open();
    if (stream.closed) return undefined; // the client left while the state was read
    deps.log.info({ target: target.kind, userId, resume: plan.kind === 'replay' ? 'replay' : plan.reason }, 'live stream opened');

    if (plan.kind === 'snapshot') {
      stream.send('snapshot', { resume: plan.reason, state: loaded.snapshot }, plan.at);
      if (subject.finished({ data: loaded.snapshot })) return void stream.end({ reason: 'final_status' });
    } else if (missed) {
      for (const message of missed) attached.take(message);
    } else {
      await deps.feed.replay(plan.from, plan.to, (message) => attached.take(message));
    }
    attached.deliverHeld();
    // finished before the gap's last message: what it missed was sent, nothing more comes
    if (missed && !stream.closed) stream.end({ reason: 'final_status' });
    return undefined;
  } finally {
    if (!handedOver) {
      following?.stop();
      deps.registry.release(slot);
    }
  }
}

/** The messages between two positions that `subject` follows (a replay read whole before the stream opens). */
async function missedBy(feed: LiveFeed, subject: Subject, from: Position, to: Position): Promise<FeedMessage[]> {
  const missed: FeedMessage[] = [];
  await feed.replay(from, to, (message) => {
    if (subject.follows(message)) missed.push(message);
  });
  return missed;
}

/**
 * One stream's following of the feed: the messages heard before the stream is ready are held (and
 * then taken in feed order); a message the subject follows is sent, and ends the stream when it
 * is final. Held per open stream for as long as it is open, so its state is fields and its steps
 * are methods: no closures of its own besides the one listener the feed calls.
 */
class Following {
  private held: FeedMessage[] | undefined = [];
  /**
   * Catching up (the replay, then what was held) sends CHECKOUT's messages before VENDOR's: a final
   * order status met then ends the stream once both are caught up, or the shipment events that led
   * to it would be cut off. A final status heard live ends it at once.
   */
  private catchingUp = true;
  private finalMet = false;
  private readonly keys: string[] = [];
  private stream: LiveStream | undefined;
  /**
   * The adoptions waiting for a read, one after another in feed order (undefined: none). While one
   * waits, later ones queue behind it, even those their event answers: a later event's adoption
   * finishing first would move the stream's position past an earlier one (and drop it).
   */
  private adoptions: Promise<void> | undefined;
  private readonly listener: FeedListener;

  constructor(
    private readonly feed: LiveFeed,
    private readonly subject: Subject,
  ) {
    this.listener = this.heard.bind(this);
  }

  listen(keys: readonly string[]): void {
    this.keys.push(...keys);
    this.feed.listen(keys, this.listener);
  }

  stop(): void {
    this.feed.unlisten(this.keys, this.listener);
  }

  attach(stream: LiveStream): void {
    this.stream = stream;
  }

  /** Takes what was held (in feed order), then every message as it comes. */
  deliverHeld(): void {
    const held = (this.held ?? []).sort((a, b) => FEED_STREAMS.indexOf(a.stream) - FEED_STREAMS.indexOf(b.stream) || a.seq - b.seq);
    this.held = undefined;
    for (const message of held) this.take(message);
    this.catchingUp = false;
    if (this.finalMet && this.stream && !this.stream.closed) this.stream.end({ reason: 'final_status' });
  }

  take(message: FeedMessage): void {
    const { stream, subject } = this;
    if (!stream || stream.closed || message.seq <= stream.position[message.stream]) return;
    if (subject.follows(message)) return this.send(stream, message);
    if (!subject.adopt || message.data.isB2b !== true || typeof message.data.orderId !== 'string') return;
    const adopts = this.adoptions ? undefined : subject.adopt(message);
    if (adopts === true) return this.adoptThenSend(message);
    if (adopts !== false) this.queueAdoption(message, adopts);
  }

  private heard(message: FeedMessage): void {
    if (this.held) this.held.push(message);
    else this.take(message);
  }

  private send(stream: LiveStream, message: FeedMessage): void {
    const position: Position = { ...stream.position, [message.stream]: message.seq };
    stream.send(FEED_EVENTS[message.type].sse, publicDataOf(message), position);
    if (!this.subject.finished({ type: message.type, data: message.data })) return;
    if (this.catchingUp) this.finalMet = true;
    else stream.end({ reason: 'final_status' });
  }

  /** Adopts `message`'s order after the adoptions queued before it: asks the subject then, or awaits the answer `asked` already. */
  private queueAdoption(message: FeedMessage, asked: Promise<boolean> | undefined): void {
    const answer = asked?.catch(() => false);
    const turn = (this.adoptions ?? Promise.resolve())
      .then(async () => {
        if (await (answer ?? this.subject.adopt?.(message))) this.adoptThenSend(message);
      })
      .catch(() => undefined);
    this.adoptions = turn;
    void turn.then(() => {
      if (this.adoptions === turn) this.adoptions = undefined;
    });
  }

  /** Follows the adopted order from now on (its shipments come on its order key) and sends its event. */
  private adoptThenSend(message: FeedMessage): void {
    const { stream } = this;
    if (!stream || stream.closed || message.seq <= stream.position[message.stream]) return;
    this.listen([`order:${message.data.orderId as string}`]);
    this.send(stream, message);
  }
}

/** What a client is shown of an event: its data without the customer's id. */
function publicDataOf(message: FeedMessage): Record<string, unknown> {
  const { customerId: _customer, ...data } = message.data;
  return data;
}

/** How each subject reads its state: the caller's GET of it from the owning service. */
interface SubjectContext {
  deps: LiveDeps;
  identity: Identity;
  requestId: string;
}

/** A customer's order: its own events; ends with the order's final status. */
class OrderSubject implements Subject {
  readonly keys: string[];

  constructor(
    private readonly context: SubjectContext,
    private readonly orderId: string,
  ) {
    this.keys = [`order:${orderId}`];
  }

  async load(): Promise<{ snapshot: unknown } | Refused> {
    const { deps, identity, requestId } = this.context;
    const order = await upstreamGet(deps, 'checkout', `/account/orders/${this.orderId}`, identity, requestId);
    return 'status' in order ? order : { snapshot: order.body };
  }

  follows(message: FeedMessage): boolean {
    return message.data.orderId === this.orderId;
  }

  finished({ type, data }: { type?: string; data: unknown }): boolean {
    return (type === undefined || type === 'checkout.order.status_changed') && isFinalOrderStatus((data as { status?: unknown }).status);
  }
}

/** A vendor's shipments: every shipment status change of the vendor's store; never ends by itself. */
class VendorSubject implements Subject {
  readonly keys: string[];

  constructor(
    private readonly context: SubjectContext,
    private readonly storeId: string,
  ) {
    this.keys = [`store:${storeId}`];
  }

  async load(): Promise<{ snapshot: unknown } | Refused> {
    const { deps, identity, requestId } = this.context;
    const shipments = await upstreamGet(deps, 'vendor', '/vendor/shipments', identity, requestId);
    return 'status' in shipments ? shipments : { snapshot: shipments.body };
  }

  follows(message: FeedMessage): boolean {
    return message.type === 'vendor.shipment.status_changed' && message.data.storeId === this.storeId;
  }

  finished(): boolean {
    return false;
  }
}

/**
 * A company's orders (for members allowed to see them): the orders its list holds, and new ones it
 * adopts; never ends by itself. It hears the B2B events naming the company and those naming none
 * (an older checkout's), not other companies'.
 */
class B2bSubject implements Subject {
  readonly keys: string[];
  private readonly known = new Set<string>();

  constructor(
    private readonly context: SubjectContext,
    private readonly companyId: string,
  ) {
    this.keys = [b2bKeyOf(companyId), B2B_UNNAMED_KEY];
  }

  async load(): Promise<{ snapshot: unknown; moreKeys?: string[] } | Refused> {
    const loaded = await this.refresh();
    return 'status' in loaded ? loaded : { ...loaded, moreKeys: [...this.known].map((id) => `order:${id}`) };
  }

  follows(message: FeedMessage): boolean {
    return this.known.has(message.data.orderId as string);
  }

  /** The event's company when it names one; else the company's order list, the authority on which orders are its own. */
  adopt(message: FeedMessage): boolean | Promise<boolean> {
    const orderId = message.data.orderId as string;
    const owner = b2bOrderOwner(message.data, this.companyId);
    if (owner === 'unknown') return this.refresh().then(() => this.known.has(orderId));
    if (owner === 'this') this.known.add(orderId);
    return owner === 'this';
  }

  finished(): boolean {
    return false;
  }

  private async refresh(): Promise<{ snapshot: unknown } | Refused> {
    const { deps, identity, requestId } = this.context;
    const orders = await upstreamGet(deps, 'b2b', `/b2b/${this.companyId}/orders`, identity, requestId);
    if ('status' in orders) return orders;
    if (Array.isArray(orders.body)) for (const order of orders.body as { id: string }[]) this.known.add(order.id);
    return { snapshot: orders.body };
  }
}

async function subjectOf(deps: LiveDeps, identity: Identity, target: LiveTarget, requestId: string): Promise<Subject | Refused> {
  const context = { deps, identity, requestId };
  if (target.kind === 'order') return new OrderSubject(context, target.orderId);
  if (target.kind === 'b2b') return new B2bSubject(context, target.companyId);
  let storeId: string | null;
  try {
    ({ storeId } = await callRpc(deps.bus, vendorStoreOfOwner, { ownerUserId: identity.userId }, { requestId }));
  } catch (err) {
    deps.log.warn({ err }, 'vendor did not say which store the vendor owns');
    return refused(503, 'service_unavailable', 'the vendor service is not reachable; try again', requestId);
  }
  if (!storeId) return refused(403, 'no_store', 'this vendor account has no store yet', requestId);
  return new VendorSubject(context, storeId);
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
  const url = `${deps.instanceOf(upstream)}${fullPath}`;
  const call = startHttpClientSpan('GET', url);
  try {
    const response = await fetch(url, {
      headers: { ...headers, accept: 'application/json', 'x-request-id': requestId, ...call.headers },
      signal: AbortSignal.timeout(deps.upstreamTimeoutMs),
    });
    call.end(response.status);
    const body = (await response.json()) as unknown;
    if (response.ok) return { body };
    return { status: response.status, body: body as Record<string, unknown> };
  } catch (err) {
    call.end(undefined);
    deps.log.warn({ err: (err as Error).message, upstream, path }, 'live stream snapshot failed');
    const timedOut = (err as Error).name === 'TimeoutError';
    return timedOut
      ? refused(504, 'upstream_timeout', `the ${upstream} service did not answer in time`, requestId)
      : refused(503, 'service_unavailable', `the ${upstream} service is not reachable; try again`, requestId);
  }
}
