import { randomUUID } from 'node:crypto';
import { callRpc, RpcRefusal, serveRpc, type Bus } from '@pasar/bus';
import {
  b2bReserveRequests,
  checkoutB2bReservationOrder,
  checkoutCancelB2bOrder,
  checkoutOrderCreated,
  checkoutOrderDetails,
  checkoutProductSnapshot,
  identityCreateUser,
  identityUsers,
  notifierSendEmail,
  type EmailMessage,
  type EventContract,
  type EventData,
  type EventEnvelope,
  type OrderDetail,
  type OrderStatus,
  type RpcResponse,
  type StreamName,
  type UserSummary,
} from '@pasar/contracts';
import { createTestSchema } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import { createTestBus, signFor, silentLog, testServiceEnv, waitFor, type TestBus } from '@pasar/testkit';
import { startB2b, type B2bService } from '../src/app';
import { checkoutOrdersOver, confirmOrder } from '../src/orders/events';
import { b2bConfigSchema } from '../src/config';

type Snapshot = RpcResponse<typeof checkoutProductSnapshot>;

/**
 * The services b2b talks to, as real NATS responders on its namespace: identity (a user
 * directory), the notifier (records what it was asked to send), checkout (a catalog of price
 * snapshots and order details).
 */
export class Peers {
  readonly users = new Map<string, UserSummary>();
  readonly sentEmails: EmailMessage[] = [];
  readonly products = new Map<string, Snapshot>();
  readonly orders = new Map<string, OrderDetail>();
  /** checkout's orders placed by reservations: reservation id → order id and status (as b2b_reservation). */
  readonly placed = new Map<string, { orderId: string; status: OrderStatus }>();
  /** The orders b2b asked checkout to cancel, in order. */
  readonly cancelCalls: string[] = [];
  checkoutDown = false;
  /** create_user calls, in order (to check the idempotency key and the password flag). */
  readonly createUserCalls: { email: string; idempotencyKey?: string; mustChangePassword: boolean }[] = [];
  notifierDown = false;
  private readonly createdByKey = new Map<string, string>();

  constructor(readonly bus: Bus) {}

  serve() {
    return [
      serveRpc(this.bus, identityCreateUser, async (input) => {
        this.createUserCalls.push({ email: input.email, idempotencyKey: input.idempotencyKey, mustChangePassword: input.mustChangePassword });
        // as the gateway does: a repeat with the same idempotency key answers the first result (created: true)
        const keyed = input.idempotencyKey ? this.createdByKey.get(input.idempotencyKey) : undefined;
        if (keyed) return { user: this.users.get(keyed)!, created: true };
        const existing = [...this.users.values()].find((u) => u.email === input.email);
        if (existing) return { user: existing, created: false };
        const user = this.addUser({ email: input.email, fullName: input.fullName, role: input.role, mustChangePassword: input.mustChangePassword });
        if (input.idempotencyKey) this.createdByKey.set(input.idempotencyKey, user.id);
        return { user, created: true };
      }),
      serveRpc(this.bus, identityUsers, async ({ userIds }) => ({ users: userIds.flatMap((id) => this.users.get(id) ?? []) })),
      serveRpc(this.bus, notifierSendEmail, async (message) => {
        if (this.notifierDown) throw new RpcRefusal('smtp_unavailable', 'the SMTP server refused');
        this.sentEmails.push(message);
        return { messageId: message.messageId, status: 'sent' as const };
      }),
      serveRpc(this.bus, checkoutProductSnapshot, async ({ productId, variantId }) => {
        const product = this.products.get(productId);
        if (!product || (variantId && product.variantId !== variantId)) throw new RpcRefusal('not_found', `no product ${productId}`);
        return product;
      }),
      serveRpc(this.bus, checkoutOrderDetails, async ({ orderId }) => ({ order: this.orders.get(orderId) ?? null })),
      serveRpc(this.bus, checkoutB2bReservationOrder, async ({ reservationId }) => {
        if (this.checkoutDown) throw new RpcRefusal('unavailable', 'checkout is down');
        const placed = this.placed.get(reservationId);
        return { orderId: placed?.orderId ?? null, status: placed?.status ?? null };
      }),
      serveRpc(this.bus, checkoutCancelB2bOrder, async ({ orderId }) => {
        this.cancelCalls.push(orderId);
        const placed = [...this.placed.values()].find((p) => p.orderId === orderId);
        if (!placed || placed.status !== 'pending_payment') return { cancelled: false, status: placed?.status ?? null };
        placed.status = 'cancelled';
        return { cancelled: true, status: 'cancelled' as const };
      }),
    ];
  }

  addUser(fields: Partial<UserSummary> = {}): UserSummary {
    const id = fields.id ?? randomUUID();
    const user: UserSummary = {
      id,
      email: fields.email ?? `user-${id.slice(0, 8)}@example.test`,
      fullName: fields.fullName ?? `User ${id.slice(0, 4)}`,
      phone: null,
      role: fields.role ?? 'customer',
      mustChangePassword: fields.mustChangePassword ?? false,
    };
    this.users.set(id, user);
    return user;
  }

  /** checkout placed `orderId` (pending payment) for `reservationId`. */
  placeOrder(reservationId: string, orderId: string = randomUUID()): string {
    this.placed.set(reservationId, { orderId, status: 'pending_payment' });
    return orderId;
  }

  addProduct(fields: Partial<Snapshot> = {}): Snapshot {
    const product: Snapshot = {
      productId: randomUUID(),
      variantId: null,
      name: 'Office chair',
      variantName: null,
      imagePath: 'products/chair.png',
      storeId: randomUUID(),
      storeName: 'Kedai Perabot',
      status: 'live',
      unitPrice: '249.90',
      weightKg: '12.500',
      ...fields,
    };
    this.products.set(product.productId, product);
    return product;
  }
}

export interface TestB2b {
  b2b: B2bService;
  peer: TestBus;
  peers: Peers;
  /** fetch on b2b's API with signed identity headers (null: anonymous); the body is parsed JSON, read freely by assertions. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(method: string, path: string, as: Caller | null, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export type Caller = { userId: string; role: 'customer' | 'vendor' | 'admin' };

/** The real b2b on port 0 with a fresh schema and NATS namespace; its peers answer rpc. */
export async function startTestB2b(env: Record<string, string> = {}): Promise<TestB2b> {
  const db = createTestSchema(undefined, 'b2b');
  const peer = await createTestBus('peer');
  const peers = new Peers(peer.bus);
  const subscriptions = peers.serve();
  const config = loadConfig(b2bConfigSchema, { ...testServiceEnv(db.databaseUrl, peer.namespace), ...env });
  const b2b = await startB2b(config, { log: silentLog }).catch(async (err: unknown) => {
    await Promise.all([peer.close(), db.drop()]);
    throw err;
  });
  await Promise.all(b2b.consumers.map((consumer) => consumer.ready));
  return {
    b2b,
    peer,
    peers,
    async call(method, path, as, body) {
      const sent = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { ...signFor(method, `/api/v1${path}`, as, undefined, sent) };
      if (sent !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${b2b.url}/api/v1${path}`, { method, headers, body: sent });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async stop() {
      for (const sub of subscriptions) sub.unsubscribe();
      await b2b.close();
      await peer.close();
      await db.drop();
    },
  };
}

/** The test file's b2b: started before its tests, stopped after; read it inside tests only. */
export function useTestB2b(env: Record<string, string> = {}): () => TestB2b {
  let started: TestB2b | undefined;
  beforeAll(async () => {
    started = await startTestB2b(env);
  }, 30_000);
  afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (!started) throw new Error('the test b2b is not started yet: use it inside a test');
    return started;
  };
}

export const customer = (userId: string = randomUUID()): Caller => ({ userId, role: 'customer' });
export const admin = (): Caller => ({ userId: randomUUID(), role: 'admin' });

export function companyBody(overrides: Record<string, string> = {}) {
  return {
    name: 'Syarikat Maju Sdn Bhd',
    ssm_number: '202001012345',
    industry: 'Manufacturing',
    address_line1: '12 Jalan Industri',
    city: 'Shah Alam',
    state: 'Selangor',
    postcode: '40000',
    contact_name: 'Aisyah Rahman',
    contact_phone: '+60123456789',
    contact_email: 'procurement@maju.example',
    ...overrides,
  };
}

export function companyUpdate(overrides: Record<string, string> = {}) {
  return {
    name: 'Syarikat Maju Sdn Bhd',
    addressLine1: '12 Jalan Industri',
    city: 'Shah Alam',
    state: 'Selangor',
    postcode: '40000',
    contactName: 'Aisyah Rahman',
    contactPhone: '+60123456789',
    contactEmail: 'procurement@maju.example',
    industry: 'Manufacturing',
    tin: 'C 0012345678',
    msicCode: '47711',
    ...overrides,
  };
}

export interface TestCompany {
  companyId: string;
  owner: Caller;
  /** Members by role (active), the owner as company_admin. */
  members: Record<'company_admin' | 'approver' | 'finance' | 'staff', Caller>;
}

/** Registers a company (HTTP), lets an administrator approve it, sets TIN and MSIC (unless `taxIds` false), and adds one active member per role. */
export async function givenApprovedCompany(t: TestB2b, options: { taxIds?: boolean } = {}): Promise<TestCompany> {
  const ownerUser = t.peers.addUser({ fullName: 'Aisyah Rahman' });
  const owner = customer(ownerUser.id);
  const created = await t.call('POST', '/b2b/companies', owner, companyBody());
  if (created.status !== 201) throw new Error(`register: ${created.status} ${JSON.stringify(created.body)}`);
  const companyId = await t.b2b.prisma.company.findFirstOrThrow({ where: { ownerId: owner.userId } }).then((c) => c.id);
  const approved = await t.call('POST', `/admin/b2b/companies/${companyId}/approve`, admin());
  if (approved.status !== 204) throw new Error(`approve: ${approved.status} ${JSON.stringify(approved.body)}`);
  if (options.taxIds !== false) {
    const patched = await t.call('PATCH', `/b2b/companies/${companyId}`, owner, companyUpdate());
    if (patched.status !== 204) throw new Error(`patch: ${patched.status} ${JSON.stringify(patched.body)}`);
  }
  const members = { company_admin: owner } as TestCompany['members'];
  for (const role of ['approver', 'finance', 'staff'] as const) {
    members[role] = await givenMember(t, companyId, role);
  }
  return { companyId, owner, members };
}

/** An active member with this role (as if invited and set up). */
export async function givenMember(
  t: TestB2b,
  companyId: string,
  role: 'company_admin' | 'approver' | 'finance' | 'staff',
  status: 'pending' | 'active' | 'inactive' = 'active',
): Promise<Caller> {
  const user = t.peers.addUser({ fullName: `${role} person` });
  await t.b2b.prisma.companyMember.create({ data: { companyId, userId: user.id, b2bRole: role, status, joinedAt: status === 'active' ? new Date() : null } });
  return customer(user.id);
}

/** A pending request raised by `by` for a product of the peers' catalog, answering its id. */
export async function givenRequest(t: TestB2b, by: Caller, product: Snapshot = t.peers.addProduct(), quantity = 2): Promise<string> {
  const res = await t.call('POST', '/b2b/purchase-requests', by, { productId: product.productId, quantity });
  if (res.status !== 201) throw new Error(`request: ${res.status} ${JSON.stringify(res.body)}`);
  return (await t.b2b.prisma.purchaseRequest.findFirstOrThrow({ where: { requesterId: by.userId }, orderBy: { createdAt: 'desc' } })).id;
}

/** An approved request (raised by staff, approved by the approver). */
export async function givenApprovedRequest(t: TestB2b, company: TestCompany, product?: Snapshot, quantity = 2): Promise<string> {
  const id = await givenRequest(t, company.members.staff, product, quantity);
  const res = await t.call('POST', `/b2b/purchase-requests/${id}/approve`, company.members.approver);
  if (res.status !== 204) throw new Error(`approve request: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

/**
 * Finance checked the requests out: b2b holds them under a reservation (rpc, as checkout asks)
 * and checkout placed `orderId` for it; delivering its order.created is the test's part.
 */
export async function givenCheckedOut(t: TestB2b, company: TestCompany, requestIds: string[], orderId: string = randomUUID()): Promise<string> {
  const { reservationId } = await callRpc(t.peer.bus, b2bReserveRequests, { reservationId: randomUUID(), userId: company.owner.userId, purchaseRequestIds: requestIds });
  return t.peers.placeOrder(reservationId, orderId);
}

/** b2b handles the order's checkout.order.created (in a transaction of its own, as its consumer does). */
export const confirmed = (t: TestB2b, order: EventData<typeof checkoutOrderCreated>) =>
  t.b2b.prisma.$transaction((tx) => confirmOrder(tx, silentLog, checkoutOrdersOver(t.b2b.bus), order));

/** The `data` of b2b's outbox events of one type, oldest first. */
export async function outboxEvents<E extends EventContract>(t: TestB2b, contract: E): Promise<EventData<E>[]> {
  const rows = await t.b2b.prisma.outbox.findMany({ where: { type: contract.type }, orderBy: { seq: 'asc' } });
  return rows.map((row) => (row.payload as unknown as EventEnvelope<EventData<E>>).data);
}

export function envelope<E extends EventContract>(contract: E, data: EventData<E>, source = 'checkout'): EventEnvelope<EventData<E>> {
  return { id: randomUUID(), type: contract.type, source, occurredAt: new Date().toISOString(), data };
}

/** Publishes as another service's relay does and waits until b2b's durable `consumer` has handled it. */
export async function publishAndWait(bus: Bus, event: EventEnvelope, consumer: string, stream: StreamName): Promise<void> {
  const ack = await bus.js.publish(bus.naming.eventSubject(event), JSON.stringify(event), { msgID: event.id });
  const jsm = await bus.jsm;
  await waitFor(async () => {
    const info = await jsm.consumers.info(bus.naming.stream(stream), bus.naming.durable('b2b', consumer));
    return info.ack_floor.stream_seq >= ack.seq;
  });
}
