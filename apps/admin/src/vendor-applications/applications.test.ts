import { randomUUID } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import { RpcRefusal, serveRpc } from '@pasar/bus';
import {
  identityCreateUser,
  identityResetPassword,
  notifierSendEmail,
  notifyEmailRequested,
  vendorApplication,
  vendorCreateStore,
  type EmailMessage,
  type RpcRequest,
  type VendorApplication,
} from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { z } from 'zod';
import { asAdmin, asCustomer, asVendor, outboxEvents, startTestAdmin, type TestAdmin } from '../../test/admin';

const APPLY = '/api/v1/vendor-applications';
const ADMIN = '/api/v1/admin/vendor-applications';

/**
 * identity, vendor and notifier as admin meets them on the bus: their rpc, answered here with the
 * documented behaviour (create_user idempotent by key and e-mail, create_store by application id,
 * send_email refusing while the recipient is refused).
 */
class Peers {
  users = new Map<string, { id: string; role: string; password: string; key?: string }>();
  createUserCalls: RpcRequest<typeof identityCreateUser>[] = [];
  stores = new Map<string, string>();
  createStoreCalls: RpcRequest<typeof vendorCreateStore>[] = [];
  resets: RpcRequest<typeof identityResetPassword>[] = [];
  emails: EmailMessage[] = [];
  refused = new Set<string>();
  storeRefusal: string | null = null;
  private subs: Subscription[] = [];
  private storeSub: Subscription | null = null;

  constructor(private readonly t: TestAdmin) {}

  start(): void {
    const { bus } = this.t.peer;
    this.subs.push(
      serveRpc(bus, identityCreateUser, async (req) => {
        this.createUserCalls.push(req);
        const existing = this.users.get(req.email);
        if (existing && req.idempotencyKey && existing.key === req.idempotencyKey) {
          existing.password = req.password;
          return { user: this.summary(req.email), created: true };
        }
        if (existing) return { user: this.summary(req.email), created: false };
        this.users.set(req.email, { id: randomUUID(), role: req.role, password: req.password, key: req.idempotencyKey });
        return { user: this.summary(req.email), created: true };
      }),
      serveRpc(bus, identityResetPassword, async (req) => {
        this.resets.push(req);
        const entry = [...this.users.entries()].find(([, u]) => u.id === req.userId);
        if (!entry) throw new RpcRefusal('not_found', 'no user');
        entry[1].password = req.password;
        return { user: this.summary(entry[0]) };
      }),
      serveRpc(bus, notifierSendEmail, async (message) => {
        if (this.refused.has(message.to)) throw new RpcRefusal('smtp_failed', '550 mailbox unavailable');
        this.emails.push(message);
        return { messageId: message.messageId, status: 'sent' as const };
      }),
    );
    this.startStores();
  }

  startStores(): void {
    this.storeSub = serveRpc(this.t.peer.bus, vendorCreateStore, async (req) => {
      this.createStoreCalls.push(req);
      if (this.storeRefusal) throw new RpcRefusal(this.storeRefusal, 'refused');
      const existing = this.stores.get(req.applicationId);
      if (existing) return { storeId: existing, created: false };
      const storeId = randomUUID();
      this.stores.set(req.applicationId, storeId);
      return { storeId, created: true };
    });
  }

  /** vendor is down: nobody answers rpc.vendor.create_store. */
  stopStores(): void {
    this.storeSub?.unsubscribe();
    this.storeSub = null;
  }

  stop(): void {
    this.stopStores();
    for (const sub of this.subs) sub.unsubscribe();
  }

  passwordOf(email: string): string | undefined {
    return this.users.get(email)?.password;
  }

  credentialsTo(email: string): EmailMessage[] {
    return this.emails.filter((m) => m.to === email && m.template === 'credentials');
  }

  private summary(email: string) {
    const user = this.users.get(email);
    if (!user) throw new Error('unknown user');
    return { id: user.id, email, fullName: 'Vendor', phone: null, role: user.role as 'vendor', mustChangePassword: true };
  }
}

let t: TestAdmin;
let peers: Peers;

beforeAll(async () => {
  t = await startTestAdmin();
  peers = new Peers(t);
  peers.start();
});
afterAll(async () => {
  peers?.stop();
  await t?.stop();
});

const http = () => request(t.admin.url);
let counter = 0;

function applicationBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    email: `seller${counter}-${randomUUID().slice(0, 8)}@example.test`,
    full_name: 'Siti Aminah',
    phone: '+60123456789',
    store_name: 'Kedai Batik Siti',
    description: 'Hand-drawn batik from Kelantan',
    location_address: '12 Jalan Sultanah, Kota Bharu',
    location_lat: 6.1254,
    location_lng: 102.2381,
    ssm_cert_url: 'https://files.example/ssm.pdf',
    logo_url: 'https://files.example/logo.png',
    banner_url: null,
    bank_name: 'Maybank',
    bank_account_number: '1122 3344 5566',
    bank_account_name: 'Kedai Batik Siti Enterprise',
    tin: 'c-0012345678',
    msic_code: '47711',
    sst_reg_no: 'W10-1808-31000001',
    intermediary_consent_accepted: true,
    intermediary_consent_tos_version: '2026-01',
    ...overrides,
  };
}

async function apply(overrides: Record<string, unknown> = {}, applicant = randomUUID()): Promise<VendorApplication> {
  const res = await http().post(APPLY).set(asCustomer(applicant)).send(applicationBody(overrides)).expect(201);
  return vendorApplication.parse(res.body);
}

describe('POST /vendor-applications', () => {
  test('a signed-in user applies: 201, Location, the spec resource with TIN and MSIC normalised, consent stamped', async () => {
    const body = applicationBody();
    const res = await http().post(APPLY).set(asCustomer()).send(body).expect(201);
    const application = vendorApplication.parse(res.body);
    expect(res.headers.location).toBe(`${ADMIN}/${application.id}`);
    expect(application).toMatchObject({
      email: body.email,
      full_name: 'Siti Aminah',
      store_name: 'Kedai Batik Siti',
      location_lat: '6.125400',
      location_lng: '102.238100',
      banner_url: null,
      status: 'pending',
      rejection_note: null,
      reviewed_at: null,
      tin: 'C12345678',
      msic_code: '47711',
      intermediary_consent_accepted: true,
      intermediary_consent_tos_version: '2026-01',
    });
    expect(application.intermediary_consent_at).not.toBeNull();
  });

  test('every field is validated: wrong types, missing fields, NUL characters, huge strings, unknown fields → 400', async () => {
    const bad: Record<string, unknown>[] = [
      { email: 'not-an-email' },
      { full_name: '' },
      { full_name: 'a\u0000b' },
      { store_name: 'x'.repeat(201) },
      { description: 'x'.repeat(5001) },
      { phone: 'call me' },
      { location_lat: 91 },
      { location_lng: 'east' },
      { logo_url: 'javascript:alert(1)' },
      { bank_account_number: '12' },
      { intermediary_consent_accepted: false },
      { intermediary_consent_tos_version: undefined },
      { surprise: true },
      { tin: 12345 },
    ];
    for (const overrides of bad) {
      const res = await http().post(APPLY).set(asCustomer()).send(applicationBody(overrides)).expect(400);
      // a NUL character is refused by the body check before validation (nul_character), the rest by the schema
      expect(['validation_failed', 'nul_character']).toContain(res.body.code);
    }
    await http().post(APPLY).set(asCustomer()).send([]).expect(400);
  });

  test('TIN and MSIC follow packages/tax: invalid_tin, invalid_msic', async () => {
    const tin = await http().post(APPLY).set(asCustomer()).send(applicationBody({ tin: 'XX123' })).expect(400);
    expect(tin.body.code).toBe('invalid_tin');
    const msic = await http().post(APPLY).set(asCustomer()).send(applicationBody({ msic_code: '4771' })).expect(400);
    expect(msic.body.code).toBe('invalid_msic');
  });

  test('one pending application per user: a second answers 409; after a rejection the user may apply again', async () => {
    const applicant = randomUUID();
    const first = await apply({}, applicant);
    const again = await http().post(APPLY).set(asCustomer(applicant)).send(applicationBody()).expect(409);
    expect(again.body.code).toBe('application_pending');
    await http().post(`${ADMIN}/${first.id}/reject`).set(asAdmin()).send({ note: 'incomplete documents' }).expect(200);
    await apply({}, applicant);
  });

  test('two applications at once from one user: exactly one is created', async () => {
    const applicant = randomUUID();
    const results = await Promise.all([0, 1, 2].map(() => http().post(APPLY).set(asCustomer(applicant)).send(applicationBody())));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  test('needs a signed-in caller (401 anonymous)', async () => {
    const res = await http().post(APPLY).set(signedHeaders(null)).send(applicationBody()).expect(401);
    expect(res.body.code).toBe('unauthenticated');
  });
});

describe('GET /admin/vendor-applications', () => {
  test('newest first, filtered by status, paged; administrators only', async () => {
    const a = await apply();
    const b = await apply();
    const c = await apply();
    await http().post(`${ADMIN}/${b.id}/reject`).set(asAdmin()).send({ note: 'no' }).expect(200);

    const all = z.array(vendorApplication).parse((await http().get(`${ADMIN}?limit=200`).set(asAdmin()).expect(200)).body);
    const ids = all.map((x) => x.id);
    expect(ids.indexOf(c.id)).toBeLessThan(ids.indexOf(b.id));
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));

    const pending = z.array(vendorApplication).parse((await http().get(`${ADMIN}?status=pending&limit=200`).set(asAdmin()).expect(200)).body);
    expect(pending.every((x) => x.status === 'pending')).toBe(true);
    expect(pending.map((x) => x.id)).toEqual(expect.arrayContaining([a.id, c.id]));
    expect(pending.map((x) => x.id)).not.toContain(b.id);

    const firstPage = (await http().get(`${ADMIN}?limit=1&page=1`).set(asAdmin()).expect(200)).body as VendorApplication[];
    const secondPage = (await http().get(`${ADMIN}?limit=1&page=2`).set(asAdmin()).expect(200)).body as VendorApplication[];
    expect(firstPage).toHaveLength(1);
    expect(secondPage[0].id).toBe(ids[1]);

    await http().get(`${ADMIN}?status=approvedish`).set(asAdmin()).expect(400);
    await http().get(`${ADMIN}?limit=201`).set(asAdmin()).expect(400);
    await http().get(ADMIN).set(asCustomer()).expect(403);
    await http().get(ADMIN).set(asVendor()).expect(403);
    await http().get(ADMIN).set(signedHeaders(null)).expect(401);
  });

  test('detail: the application, 404 unknown, 400 not a uuid', async () => {
    const a = await apply();
    const res = await http().get(`${ADMIN}/${a.id}`).set(asAdmin()).expect(200);
    expect(vendorApplication.parse(res.body)).toEqual(a);
    await http().get(`${ADMIN}/${randomUUID()}`).set(asAdmin()).expect(404);
    await http().get(`${ADMIN}/not-a-uuid`).set(asAdmin()).expect(400);
    await http().get(`${ADMIN}/${a.id}`).set(asCustomer()).expect(403);
  });
});

describe('POST /admin/vendor-applications/{id}/reject', () => {
  test('stores the note, stamps reviewed_at, asks for the rejection e-mail through the outbox; only from pending', async () => {
    const a = await apply();
    const res = await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: '  SSM certificate unreadable  ' }).expect(200);
    const rejected = vendorApplication.parse(res.body);
    expect(rejected).toMatchObject({ id: a.id, status: 'rejected', rejection_note: 'SSM certificate unreadable' });
    expect(rejected.reviewed_at).not.toBeNull();

    const emails = (await outboxEvents(t, notifyEmailRequested)).filter((m) => m.to === a.email);
    expect(emails).toEqual([
      expect.objectContaining({
        template: 'vendor_application_rejected',
        vars: { fullName: 'Siti Aminah', storeName: 'Kedai Batik Siti', note: 'SSM certificate unreadable' },
      }),
    ]);

    const again = await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: 'twice' }).expect(409);
    expect(again.body.code).toBe('not_pending');
    const approve = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(409);
    expect(approve.body.code).toBe('not_pending');
  });

  test('needs a note (400), a known application (404)', async () => {
    const a = await apply();
    await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({}).expect(400);
    await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: '' }).expect(400);
    await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: 7 }).expect(400);
    await http().post(`${ADMIN}/${randomUUID()}/reject`).set(asAdmin()).send({ note: 'x' }).expect(404);
  });
});

describe('POST /admin/vendor-applications/{id}/approve (the saga)', () => {
  test('creates the vendor account and the store, approves, e-mails the 16-character password', async () => {
    const a = await apply();
    const res = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(200);
    expect(vendorApplication.parse(res.body)).toMatchObject({ id: a.id, status: 'approved' });

    const [createUser] = peers.createUserCalls.filter((c) => c.email === a.email);
    expect(createUser).toMatchObject({ role: 'vendor', mustChangePassword: true, idempotencyKey: `vendor-application:${a.id}`, fullName: 'Siti Aminah' });
    expect(createUser.password).toHaveLength(16);

    const [createStore] = peers.createStoreCalls.filter((c) => c.applicationId === a.id);
    expect(createStore).toMatchObject({
      ownerUserId: peers.users.get(a.email)?.id,
      name: 'Kedai Batik Siti',
      tin: 'C12345678',
      msicCode: '47711',
      sstRegNo: 'W10-1808-31000001',
      bankName: 'Maybank',
      bankAccountNumber: '1122 3344 5566',
      consent: { accepted: true, acceptedAt: a.intermediary_consent_at, tosVersion: '2026-01' },
    });

    const [email] = peers.credentialsTo(a.email);
    expect(email).toMatchObject({ template: 'credentials', vars: { email: a.email, password: createUser.password } });

    const row = await t.admin.prisma.vendorApplication.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.userId).toBe(peers.users.get(a.email)?.id);
    expect(row.storeId).toBe(peers.stores.get(a.id));
    // the password travels only in the synchronous rpc: nothing in admin's outbox carries it
    const outbox = await t.admin.prisma.outbox.findMany();
    expect(JSON.stringify(outbox.map((o) => o.payload))).not.toContain(createUser.password);

    const again = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(409);
    expect(again.body.code).toBe('not_pending');
  });

  test('an approval that stopped half-way completes on the next approve: no second account or store', async () => {
    const a = await apply();
    peers.stopStores();
    try {
      const down = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(503);
      expect(down.body.code).toBe('dependency_unavailable');
    } finally {
      peers.startStores();
    }
    const halfway = await t.admin.prisma.vendorApplication.findUniqueOrThrow({ where: { id: a.id } });
    expect(halfway).toMatchObject({ status: 'pending', storeId: null, approvingUntil: null });
    expect(halfway.userId).not.toBeNull();
    // the account exists and nothing undoes it: the application can only be approved now
    const reject = await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: 'no' }).expect(409);
    expect(reject.body.code).toBe('approval_started');

    await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(200);
    expect(peers.createUserCalls.filter((c) => c.email === a.email)).toHaveLength(1);
    expect(peers.stores.has(a.id)).toBe(true);
    expect(peers.createStoreCalls.filter((c) => c.applicationId === a.id)).toHaveLength(1);
    // this run did not create the account, so it reset the password and e-mailed that one
    const [email] = peers.credentialsTo(a.email);
    expect(email.vars).toMatchObject({ password: peers.passwordOf(a.email) });
    expect(peers.resets.filter((r) => r.userId === halfway.userId)).toHaveLength(1);
  });

  test('a store the vendor service refuses: 409 store_refused, the application stays pending', async () => {
    const a = await apply();
    peers.storeRefusal = 'owner_has_store';
    try {
      const res = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(409);
      expect(res.body).toMatchObject({ code: 'store_refused' });
      expect(res.body.detail).toMatch(/owner_has_store/);
    } finally {
      peers.storeRefusal = null;
    }
    expect((await t.admin.prisma.vendorApplication.findUniqueOrThrow({ where: { id: a.id } })).status).toBe('pending');
  });

  test('an e-mail that belongs to a customer account: 409 email_taken, nothing created', async () => {
    const a = await apply();
    peers.users.set(a.email, { id: randomUUID(), role: 'customer', password: 'irrelevant' });
    const res = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(409);
    expect(res.body.code).toBe('email_taken');
    expect(peers.stores.has(a.id)).toBe(false);
  });

  test('an e-mail of an existing vendor account without a store: 409 email_taken, the account is not taken over', async () => {
    const a = await apply();
    const owner = { id: randomUUID(), role: 'vendor', password: 'the owner’s own password' };
    peers.users.set(a.email, owner);
    const res = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(409);
    expect(res.body.code).toBe('email_taken');
    expect(peers.stores.has(a.id)).toBe(false);
    expect(peers.resets.filter((r) => r.userId === owner.id)).toHaveLength(0);
    expect(peers.passwordOf(a.email)).toBe('the owner’s own password');
    expect(peers.credentialsTo(a.email)).toHaveLength(0);
    const row = await t.admin.prisma.vendorApplication.findUniqueOrThrow({ where: { id: a.id } });
    expect([row.status, row.userId, row.storeId]).toEqual(['pending', null, null]);
  });

  test('two approvals at once: one answers 200, the other 409; one account, one store', async () => {
    const a = await apply();
    const results = await Promise.all([0, 1].map(() => http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin())));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(new Set(peers.createStoreCalls.filter((c) => c.applicationId === a.id).map(() => peers.stores.get(a.id))).size).toBe(1);
    expect([...peers.users.keys()].filter((e) => e === a.email)).toHaveLength(1);
    expect(peers.credentialsTo(a.email)).toHaveLength(1);
  });

  test('approve and reject at once: exactly one wins, and a rejected application gets no account or store', async () => {
    for (let round = 0; round < 4; round += 1) {
      const a = await apply();
      const [approve, reject] = await Promise.all([
        http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()),
        http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: 'changed our mind' }),
      ]);
      expect([approve.status, reject.status].sort()).toEqual([200, 409]);
      const row = await t.admin.prisma.vendorApplication.findUniqueOrThrow({ where: { id: a.id } });
      if (row.status === 'rejected') {
        expect(peers.stores.has(a.id)).toBe(false);
        expect(peers.users.has(a.email)).toBe(false);
      } else {
        expect(row.status).toBe('approved');
        expect(peers.stores.has(a.id)).toBe(true);
      }
    }
  });

  test('a running approval (its lease) turns a second approve and a reject away; an expired lease does not', async () => {
    const a = await apply();
    await t.admin.prisma.vendorApplication.update({ where: { id: a.id }, data: { approvingUntil: new Date(Date.now() + 60_000) } });
    expect((await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(409)).body.code).toBe('approval_in_progress');
    expect((await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: 'no' }).expect(409)).body.code).toBe('approval_in_progress');
    expect(peers.createUserCalls.filter((c) => c.email === a.email)).toHaveLength(0);

    // the process that held it died: once the lease has passed, approve takes over
    await t.admin.prisma.vendorApplication.update({ where: { id: a.id }, data: { approvingUntil: new Date(Date.now() - 1000) } });
    await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(200);
    expect((await t.admin.prisma.vendorApplication.findUniqueOrThrow({ where: { id: a.id } })).approvingUntil).toBeNull();
  });

  test('an undeliverable credentials e-mail: 500, the application stays approved; resend after the fix delivers a new password', async () => {
    const a = await apply();
    peers.refused.add(a.email);
    const res = await http().post(`${ADMIN}/${a.id}/approve`).set(asAdmin()).expect(500);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 500, code: 'credentials_email_failed' });
    expect((await http().get(`${ADMIN}/${a.id}`).set(asAdmin()).expect(200)).body.status).toBe('approved');

    // still refused: resend resets the password and answers 500
    const userId = peers.users.get(a.email)?.id;
    await http().post(`${ADMIN}/${a.id}/resend-credentials`).set(asAdmin()).expect(500);
    expect(peers.resets.filter((r) => r.userId === userId)).toHaveLength(1);

    peers.refused.delete(a.email);
    const resent = await http().post(`${ADMIN}/${a.id}/resend-credentials`).set(asAdmin()).expect(204);
    expect(resent.text).toBe('');
    const delivered = peers.credentialsTo(a.email);
    expect(delivered).toHaveLength(1);
    expect(delivered[0].vars).toMatchObject({ password: peers.passwordOf(a.email) });
    expect((delivered[0].vars as { password: string }).password).toHaveLength(16);
    expect(peers.resets.filter((r) => r.userId === userId)).toHaveLength(2);
  });
});

describe('POST /admin/vendor-applications/{id}/resend-credentials', () => {
  test('approved applications only (409), known ones (404), administrators only (403)', async () => {
    const a = await apply();
    const pending = await http().post(`${ADMIN}/${a.id}/resend-credentials`).set(asAdmin()).expect(409);
    expect(pending.body.code).toBe('not_approved');
    await http().post(`${ADMIN}/${a.id}/reject`).set(asAdmin()).send({ note: 'no' }).expect(200);
    await http().post(`${ADMIN}/${a.id}/resend-credentials`).set(asAdmin()).expect(409);
    await http().post(`${ADMIN}/${randomUUID()}/resend-credentials`).set(asAdmin()).expect(404);
    await http().post(`${ADMIN}/${a.id}/resend-credentials`).set(asVendor()).expect(403);
  });
});
