import { b2bCompanyReviewed, b2bReleaseRequests, b2bReserveRequests, checkoutB2bReservationOrder, checkoutCancelB2bOrder, checkoutOrderDetails } from './b2b';
import {
  adminShipmentBooked,
  checkoutOrderCreated,
  checkoutOrderPaid,
  checkoutOrderStatusChanged,
  checkoutProductSnapshot,
  checkoutProductsMissingDimensions,
  checkoutReturnRequested,
  vendorBookingContext,
  vendorCreateStore,
  vendorShipmentStatusChanged,
  vendorShippingMethodDeleted,
  vendorShippingMethodUpserted,
  vendorStoreUpserted,
} from './commerce';
import { identityAccountSetupCompleted, identityUserUpserted, notifyEmailRequested } from './events';
import { rpcSubjectOf, streamOf, type EventContract, type RpcContract, type StreamName } from './messaging';
import { vendorStoreOfOwner } from './live';
import { identityCreateUser, identityResetPassword, identityUsers, notifierSendEmail } from './rpc';

/**
 * Who may say what on the bus: the one table the NATS users' permissions are generated from
 * (packages/bus natsPermissionsOf, the launcher's and compose's nats-server config) and the table
 * in docs/architecture.md is rendered from (renderBusPermissionTable).
 */

/** The services that hold a NATS user. */
export const BUS_SERVICES = ['gateway', 'checkout', 'b2b', 'vendor', 'admin', 'notifier'] as const;
export type BusService = (typeof BUS_SERVICES)[number];

/**
 * Operator tools that hold a NATS user of their own: `stack` is the launcher's demo seed (`npm
 * start`), which creates the demo customers, vendors and stores. Production configs leave it out.
 */
export const BUS_TOOLS = ['stack'] as const;
export type BusTool = (typeof BUS_TOOLS)[number];
export type BusUser = BusService | BusTool;

/** The service that creates (and may update) each stream: the one that publishes its domain's events. */
export const STREAM_OWNERS: Readonly<Record<StreamName, BusService>> = {
  IDENTITY: 'gateway',
  CHECKOUT: 'checkout',
  B2B: 'b2b',
  VENDOR: 'vendor',
  ADMIN: 'admin',
  NOTIFY: 'notifier',
};

/** A durable consumer of an event: the service and its durable name within the service (ConsumerOptions.name). */
export interface EventConsumerGrant {
  service: BusService;
  durable: string;
  /** The one part of a routed event it listens on (ConsumerOptions.routeKey); default every part. */
  routeKey?: string;
}

export interface EventGrant {
  event: EventContract;
  publishers: readonly BusService[];
  consumers: readonly EventConsumerGrant[];
}

export interface RpcGrant {
  rpc: RpcContract;
  /** The one service that answers it. */
  answerer: BusService;
  callers: readonly BusUser[];
}

const consumer = (service: BusService, durable: string, routeKey?: string): EventConsumerGrant => ({ service, durable, ...(routeKey ? { routeKey } : {}) });

/** Every event: who publishes it and which durable consumers read it. */
export const EVENT_GRANTS: readonly EventGrant[] = [
  {
    event: identityUserUpserted,
    publishers: ['gateway'],
    consumers: [consumer('checkout', 'user-replica'), consumer('b2b', 'user-replica')],
  },
  {
    event: identityAccountSetupCompleted,
    publishers: ['gateway'],
    consumers: [consumer('checkout', 'profile-account-setup'), consumer('checkout', 'family-activation'), consumer('b2b', 'member-activation')],
  },
  { event: notifyEmailRequested, publishers: ['gateway', 'checkout', 'b2b', 'vendor', 'admin'], consumers: [consumer('notifier', 'email-requested')] },
  { event: vendorStoreUpserted, publishers: ['vendor'], consumers: [consumer('checkout', 'store-replica')] },
  { event: vendorShippingMethodUpserted, publishers: ['vendor'], consumers: [consumer('checkout', 'shipping-method-replica')] },
  { event: vendorShippingMethodDeleted, publishers: ['vendor'], consumers: [consumer('checkout', 'shipping-method-removal')] },
  {
    event: vendorShipmentStatusChanged,
    publishers: ['vendor'],
    consumers: [
      consumer('admin', 'tracking-index'),
      consumer('admin', 'shipment-state'),
      consumer('admin', 'carrier-booking-cancellations'),
      consumer('checkout', 'shipment-status-mirror'),
    ],
  },
  {
    event: checkoutOrderCreated,
    publishers: ['checkout'],
    consumers: [consumer('vendor', 'shipments-order-created'), consumer('b2b', 'b2b-order-created', 'b2b')],
  },
  { event: checkoutOrderPaid, publishers: ['checkout'], consumers: [consumer('vendor', 'shipments-order-paid'), consumer('b2b', 'b2b-order-paid')] },
  {
    event: checkoutOrderStatusChanged,
    publishers: ['checkout'],
    consumers: [consumer('vendor', 'shipments-order-closed'), consumer('b2b', 'b2b-order-status')],
  },
  { event: checkoutReturnRequested, publishers: ['checkout'], consumers: [consumer('vendor', 'webhooks-return-requested')] },
  { event: adminShipmentBooked, publishers: ['admin'], consumers: [consumer('vendor', 'shipments-booked')] },
  { event: b2bCompanyReviewed, publishers: ['b2b'], consumers: [] },
];

/** Every rpc: the one service that answers it and who may ask. */
export const RPC_GRANTS: readonly RpcGrant[] = [
  { rpc: identityCreateUser, answerer: 'gateway', callers: ['admin', 'checkout', 'b2b', 'stack'] },
  { rpc: identityResetPassword, answerer: 'gateway', callers: ['admin'] },
  { rpc: identityUsers, answerer: 'gateway', callers: ['b2b'] },
  { rpc: notifierSendEmail, answerer: 'notifier', callers: ['admin', 'checkout', 'b2b'] },
  { rpc: checkoutOrderDetails, answerer: 'checkout', callers: ['b2b'] },
  { rpc: checkoutProductSnapshot, answerer: 'checkout', callers: ['b2b'] },
  { rpc: checkoutProductsMissingDimensions, answerer: 'checkout', callers: ['vendor'] },
  { rpc: vendorCreateStore, answerer: 'vendor', callers: ['admin', 'stack'] },
  { rpc: vendorBookingContext, answerer: 'vendor', callers: ['admin'] },
  { rpc: b2bReserveRequests, answerer: 'b2b', callers: ['checkout'] },
  { rpc: b2bReleaseRequests, answerer: 'b2b', callers: ['checkout'] },
  { rpc: checkoutB2bReservationOrder, answerer: 'checkout', callers: ['b2b'] },
  { rpc: checkoutCancelB2bOrder, answerer: 'checkout', callers: ['b2b'] },
  { rpc: vendorStoreOfOwner, answerer: 'vendor', callers: ['gateway'] },
];

/**
 * Streams a service reads whole through ordered (ephemeral, unacknowledged) consumers, besides its
 * durables: the gateway's live streams follow orders and shipments (apps/gateway live/feed.ts).
 */
export const STREAM_READERS: readonly { stream: StreamName; service: BusService }[] = [
  { stream: 'CHECKOUT', service: 'gateway' },
  { stream: 'VENDOR', service: 'gateway' },
];

/**
 * Core NATS subjects (no stream) the instances of one service tell each other on: each instance
 * publishes and subscribes. The gateway's session revocations (apps/gateway auth/revocations.ts).
 */
export const BROADCAST_GRANTS: readonly { subject: string; service: BusService }[] = [{ subject: 'gateway.session.revoked', service: 'gateway' }];

/** The streams a user creates at start (the ones it owns). */
export function streamsOwnedBy(user: BusUser): StreamName[] {
  return (Object.entries(STREAM_OWNERS) as [StreamName, BusService][]).filter(([, owner]) => owner === user).map(([stream]) => stream);
}

/** What one user may do, in plain (un-namespaced) names; packages/bus natsPermissionsOf turns it into NATS permissions. */
export interface BusGrants {
  /** Event subjects it publishes (`<type>`, or `<type>.*` for a routed type). */
  publishes: string[];
  /** Durable consumers it runs: stream, durable name (within the service), event filter subject. */
  consumes: { stream: StreamName; durable: string; filter: string }[];
  /** Rpc subjects it answers (with allow_responses). */
  answers: string[];
  /** Core subjects its instances publish and subscribe to among themselves (BROADCAST_GRANTS). */
  broadcasts: string[];
  /** Rpc subjects it asks. */
  calls: string[];
  /** Streams it creates and updates. */
  owns: StreamName[];
  /** Streams it reads through ordered consumers (STREAM_READERS). */
  reads: StreamName[];
}

function eventSubjectPattern(event: EventContract, routeKey?: string): string {
  if (!event.route) return event.type;
  return routeKey ? `${event.type}.${routeKey}` : `${event.type}.*`;
}

/** Everything `user` may do on the bus, from EVENT_GRANTS, RPC_GRANTS and STREAM_OWNERS. */
export function busGrantsOf(user: BusUser): BusGrants {
  const publishes = EVENT_GRANTS.filter((g) => g.publishers.includes(user as BusService)).map((g) => eventSubjectPattern(g.event));
  const consumes = EVENT_GRANTS.flatMap((g) =>
    g.consumers
      .filter((c) => c.service === user)
      .map((c) => ({ stream: streamOf(g.event.type), durable: c.durable, filter: eventSubjectPattern(g.event, c.routeKey) })),
  );
  const answers = RPC_GRANTS.filter((g) => g.answerer === user).map((g) => rpcSubjectOf(g.rpc));
  const calls = RPC_GRANTS.filter((g) => g.callers.includes(user)).map((g) => rpcSubjectOf(g.rpc));
  const broadcasts = BROADCAST_GRANTS.filter((g) => g.service === user).map((g) => g.subject);
  const reads = STREAM_READERS.filter((r) => r.service === user).map((r) => r.stream);
  return { publishes, consumes, answers, calls, broadcasts, owns: streamsOwnedBy(user), reads };
}

/**
 * The subject permission table as Markdown (docs/architecture.md "Bus permissions" holds this
 * output; a test keeps the two equal): `npm run nats:config -- --table` prints it.
 */
export function renderBusPermissionTable(): string {
  const list = (names: readonly string[]) => (names.length ? names.join(', ') : '(none)');
  const lines = [
    '| Subject | Kind | Publisher / answerer | Consumers (durable) / callers |',
    '| --- | --- | --- | --- |',
    ...EVENT_GRANTS.map(
      (g) =>
        `| \`${eventSubjectPattern(g.event)}\` | event (stream ${streamOf(g.event.type)}) | ${list(g.publishers)} | ${list(
          g.consumers.map((c) => `${c.service} (${c.durable}${c.routeKey ? `, only \`${eventSubjectPattern(g.event, c.routeKey)}\`` : ''})`),
        )} |`,
    ),
    ...RPC_GRANTS.map((g) => `| \`${rpcSubjectOf(g.rpc)}\` | rpc | ${g.answerer} | ${list(g.callers)} |`),
    ...BROADCAST_GRANTS.map((g) => `| \`${g.subject}\` | core, among its instances | ${g.service} | ${g.service} |`),
    ...STREAM_READERS.map((r) => `| stream \`${r.stream}\` | read whole (ordered consumer) | ${STREAM_OWNERS[r.stream]} | ${r.service} |`),
  ];
  const owners = (Object.entries(STREAM_OWNERS) as [StreamName, BusService][]).map(([stream, owner]) => `${stream}: ${owner}`).join(', ');
  return `${lines.join('\n')}\n\nStream owners (create and update the stream): ${owners}.\n`;
}
