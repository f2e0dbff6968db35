import { randomUUID } from 'node:crypto';
import { consume, RpcRefusal, serveRpc, type Bus, type RunningConsumer } from '@pasar/bus';
import {
  family as familySchema,
  identityCreateUser,
  notifierSendEmail,
  notifyEmailRequested,
  type EmailMessage,
  type Family,
  type FamilyMember as FamilyMemberJson,
  type Role,
  type RpcRequest,
  type UserSummary,
} from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import { toFamilyMemberJson } from './routes';

/** Test helpers of the family feature (used by its *.test.ts files only). */

export const asCustomer = (userId: string, email = `${userId}@example.test`) => signedHeaders({ userId, role: 'customer', email });
export const asVendor = (userId = randomUUID()) => signedHeaders({ userId, role: 'vendor' });

export type CreateUserRequest = RpcRequest<typeof identityCreateUser>;

/**
 * A real responder of `rpc.identity.create_user` on the peer bus, as the gateway serves it:
 * idempotent by e-mail (an existing account answers created=false), and a repeat with the
 * creating call's idempotencyKey answers created=true. It can be stopped (nobody answers →
 * checkout answers 503) and told to refuse.
 */
export class FakeIdentity {
  readonly requests: CreateUserRequest[] = [];
  private readonly users = new Map<string, UserSummary>();
  private readonly keys = new Map<string, string>();
  private subscription: ReturnType<typeof serveRpc> | null = null;
  refusal: string | null = null;

  constructor(private readonly bus: Bus) {}

  async start(): Promise<void> {
    this.subscription = serveRpc(this.bus, identityCreateUser, async (req) => this.createUser(req));
    await this.bus.nc.flush();
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    this.subscription = null;
    await this.bus.nc.flush();
  }

  /** An account that exists before anyone invites it. */
  existing(email: string, role: Role = 'customer', fullName = 'Existing Person'): UserSummary {
    const user: UserSummary = { id: randomUUID(), email, fullName, phone: null, role, mustChangePassword: false };
    this.users.set(email, user);
    return user;
  }

  userByEmail(email: string): UserSummary | undefined {
    return this.users.get(email);
  }

  private async createUser(req: CreateUserRequest) {
    this.requests.push(req);
    if (this.refusal) throw new RpcRefusal(this.refusal, 'refused by the test');
    const email = req.email.trim().toLowerCase();
    const found = this.users.get(email);
    // a repeat of the keyed creation, while the user has not chosen a password yet
    if (found) return { user: found, created: req.idempotencyKey !== undefined && this.keys.get(req.idempotencyKey) === email && found.mustChangePassword };
    const user: UserSummary = { id: randomUUID(), email, fullName: req.fullName, phone: null, role: req.role, mustChangePassword: req.mustChangePassword };
    this.users.set(email, user);
    if (req.idempotencyKey) this.keys.set(req.idempotencyKey, email);
    return { user, created: true };
  }
}

/**
 * A real responder of `rpc.notifier.send_email` on the peer bus: keeps what it was asked to send,
 * by recipient. It can be stopped (nobody answers → 503) and told to refuse (as on an SMTP failure).
 */
export class FakeNotifier {
  readonly sent = new Map<string, EmailMessage[]>();
  private subscription: ReturnType<typeof serveRpc> | null = null;
  refusal: string | null = null;

  constructor(private readonly bus: Bus) {}

  async start(): Promise<void> {
    this.subscription = serveRpc(this.bus, notifierSendEmail, async (message) => {
      if (this.refusal) throw new RpcRefusal(this.refusal, 'refused by the test');
      this.sent.set(message.to, [...(this.sent.get(message.to) ?? []), message]);
      return { messageId: message.messageId, status: 'sent' as const };
    });
    await this.bus.nc.flush();
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    this.subscription = null;
    await this.bus.nc.flush();
  }
}

export const uniqueEmail = (name = 'member') => `${name}.${randomUUID().slice(0, 8)}@example.test`;

/** The HTTP side of a family test: the checkout under test, reached as the gateway would. */
export function familyClient(t: TestCheckout) {
  const http = () => request(t.checkout.url);
  return {
    http,
    /** POST /family as a new customer; answers the owner's id and the family. */
    async newFamily(name = 'Keluarga Rahman', ownerId = randomUUID()): Promise<{ ownerId: string; family: Family }> {
      const res = await http().post('/api/v1/family').set(asCustomer(ownerId)).send({ name }).expect(201);
      return { ownerId, family: familySchema.parse(res.body) };
    },
    /** POST /family/members as the owner; answers the response. */
    invite(ownerId: string, body: { email: string } & Record<string, unknown>) {
      return http().post('/api/v1/family/members').set(asCustomer(ownerId)).send(body);
    },
    /** POST /family/members as the owner (202, the same answer for every e-mail); answers the member it made, as the family lists it. */
    async invited(ownerId: string, body: { email: string; fullName: string }): Promise<FamilyMemberJson> {
      await http().post('/api/v1/family/members').set(asCustomer(ownerId)).send(body).expect(202, { email: body.email.trim().toLowerCase(), status: 'pending' });
      const family = await t.checkout.prisma.familyAccount.findFirstOrThrow({ where: { ownerId } });
      const member = await t.checkout.prisma.familyMember.findFirstOrThrow({ where: { familyId: family.id, email: { equals: body.email.trim(), mode: 'insensitive' } } });
      return JSON.parse(JSON.stringify(toFamilyMemberJson(member))) as FamilyMemberJson;
    },
  };
}

/** Makes the user's pending memberships active as account setup would (without the event). */
export async function activateDirectly(t: TestCheckout, userId: string): Promise<void> {
  await t.checkout.prisma.familyMember.updateMany({ where: { userId, status: 'pending' }, data: { status: 'active', joinedAt: new Date(), mustChangePassword: false } });
}

/** A running checkout with a fake identity answering create_user, and the family client. */
export interface FamilyWorld {
  t: TestCheckout;
  identity: FakeIdentity;
  /** Answers rpc.notifier.send_email: the invites checkout sent, by recipient. */
  notifier: FakeNotifier;
  client: ReturnType<typeof familyClient>;
  /** With `mailbox: true`: the e-mail requests checkout published to NATS (as events), by recipient. */
  mailbox: Map<string, EmailMessage[]>;
}

/**
 * Starts a family world before the file's tests (checkout's consumers ready) and stops it after
 * them. The returned object is filled in by then.
 */
export function useFamilyWorld(options: { mailbox?: boolean; env?: Record<string, string> } = {}): FamilyWorld {
  const world = { mailbox: new Map<string, EmailMessage[]>() } as FamilyWorld;
  let mailConsumer: RunningConsumer | undefined;
  beforeAll(async () => {
    world.t = await startTestCheckout(options.env);
    world.identity = new FakeIdentity(world.t.peer.bus);
    await world.identity.start();
    world.notifier = new FakeNotifier(world.t.peer.bus);
    await world.notifier.start();
    world.client = familyClient(world.t);
    if (options.mailbox) {
      mailConsumer = consume(world.t.peer.bus, {
        name: 'test-mailbox',
        event: notifyEmailRequested,
        handler: async (message) => {
          world.mailbox.set(message.to, [...(world.mailbox.get(message.to) ?? []), message]);
        },
      });
    }
    await Promise.all([mailConsumer?.ready, ...world.t.checkout.consumers.map((consumer) => consumer.ready)]);
  });
  afterAll(async () => {
    await mailConsumer?.stop();
    await world.identity?.stop();
    await world.notifier?.stop();
    await world.t?.stop();
  });
  return world;
}
