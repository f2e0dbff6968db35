/**
 * Black-box, through the gateway (issue 10): a company registers → an administrator approves
 * (the e-mail arrives) → the company_admin sets TIN/MSIC and invites a finance and a staff member
 * (invite e-mails; account setup activates them) → staff raises a request → the admin approves →
 * finance checks out (B2B submit) and pays (mock) → the request is paid, the order listed, the
 * dashboards show the spend. Also: two concurrent B2B submits of one request make one order; an
 * unconfirmed reservation is released after its (short) TTL; a rejected company; isolation.
 */
import { randomUUID } from 'node:crypto';
import { callRpc } from '@pasar/bus';
import { b2bReserveRequests } from '@pasar/contracts';
import { DEMO_B2B_ADMIN_EMAIL, DEMO_B2B_STAFF_EMAIL, liveProductBody, seedB2bDemo } from '@pasar/stack';
import { waitFor, type TestBus } from '@pasar/testkit';
import { connectStackBus } from './support/bus';
import { openStore, pollUntil, type E2eStore } from './support/commerce';
import { show, type ApiClient, type ApiResponse, type Problem } from './support/http';
import { newCustomer } from './support/identity';
import { API, useE2eStack, withLogs, type E2eStack } from './support/stack';

const env = useE2eStack({ env: { b2b: { B2B_RESERVATION_TTL: '3s', B2B_RESERVATION_SWEEP: '500ms' } } });

const PRICE = '125.40';

const company = {
  name: 'Syarikat E2E Sdn Bhd',
  ssm_number: '202401099999',
  industry: 'Retail',
  address_line1: '3 Jalan Kilang',
  city: 'Petaling Jaya',
  state: 'Selangor',
  postcode: '46000',
  contact_name: 'Farid Hamzah',
  contact_phone: '+60 12-777 8888',
  contact_email: 'procurement@e2e.example',
};
const companyEdit = {
  name: company.name,
  addressLine1: company.address_line1,
  city: company.city,
  state: company.state,
  postcode: company.postcode,
  contactName: company.contact_name,
  contactPhone: company.contact_phone,
  contactEmail: company.contact_email,
  industry: company.industry,
  tin: 'C 0098765432',
  msicCode: '47190',
};

interface Member {
  client: ApiClient;
  userId: string;
  email: string;
}

async function signedUp(e2e: E2eStack, label: string): Promise<Member> {
  const client = e2e.client();
  const login = newCustomer(label);
  const res = await client.post<{ user: { id: string } }>(`${API}/auth/sign-up`, login);
  if (res.status !== 201) throw new Error(`sign-up: ${show(res)}`);
  return { client, userId: res.body.user.id, email: login.email };
}

async function signedInAdmin(e2e: E2eStack): Promise<ApiClient> {
  const admin = e2e.client();
  const res = await admin.post(`${API}/auth/sign-in`, e2e.stack.admin);
  if (res.status !== 200) throw new Error(`admin sign-in: ${show(res)}`);
  return admin;
}

/** The temporary password from the invite e-mail (text part; quoted-printable soft breaks removed). */
function temporaryPasswordOf(raw: string): string {
  const match = /Temporary password: ([A-Za-z0-9_-]{16})/.exec(raw.replace(/=\r?\n/g, ''));
  if (!match) throw new Error(`no temporary password in the invite e-mail:\n${raw.slice(0, 2000)}`);
  return match[1];
}

/** company_admin invites; the invitee signs in with the e-mailed password and completes account setup; b2b activates them. */
async function invited(e2e: E2eStack, admin: ApiClient, companyId: string, b2bRole: string, label: string): Promise<Member> {
  const login = newCustomer(label);
  const invite = await admin.post<{ status: string; email: string }>(`${API}/b2b/${companyId}/team`, { email: login.email, fullName: login.fullName, b2bRole });
  expect(invite.status).toBe(202);
  expect(invite.body.status).toBe('pending');
  const mail = await e2e.smtp.waitFor((m) => m.to.includes(login.email) && /invited you/.test(m.subject), 30_000);
  expect(mail.subject).toContain(company.name);
  const temporary = temporaryPasswordOf(mail.raw);
  const client = e2e.client();
  const signIn = await client.post<{ user: { id: string } }>(`${API}/auth/sign-in`, { email: login.email, password: temporary });
  expect(signIn.status).toBe(200);
  // pending until account setup
  expect((await client.get<Problem>(`${API}/b2b/${companyId}/team`)).body.code).toBe('membership_pending');
  const setup = await client.post(`${API}/account/setup`, {
    currentPassword: temporary,
    newPassword: login.password,
    fullName: login.fullName,
    phone: '+60 12-000 2222',
    address: { fullName: login.fullName, phone: '+60 12-000 2222', addressLine1: '1 Jalan Satu', addressLine2: null, city: 'Ipoh', postcode: '30000', state: 'Perak' },
  });
  expect(setup.status).toBe(204);
  await pollUntil<{ role: string; memberStatus: string } | null>(client, '/b2b/context', (c) => c?.memberStatus === 'active' && c.role === b2bRole);
  return { client, userId: signIn.body.user.id, email: login.email };
}

/** B2B submit; the store's shipping method reaches checkout by event, so a 400 shipping_* answer is retried with the same key. */
function b2bSubmit(client: ApiClient, body: Record<string, unknown>, idempotencyKey?: string): Promise<ApiResponse<{ orderId: string; total: string }>> {
  return waitFor(
    async () => {
      const res = await client.post<{ orderId: string; total: string }>(`${API}/checkout/b2b/submit`, body, idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {});
      const code = (res.body as unknown as Problem)?.code ?? '';
      return res.status === 400 && code.startsWith('shipping_') ? undefined : res;
    },
    30_000,
    200,
  );
}

async function raisedAndApproved(staff: Member, approver: Member, companyId: string, productId: string, quantity: number): Promise<string> {
  expect((await staff.client.post(`${API}/b2b/purchase-requests`, { productId, quantity })).status).toBe(201);
  const [request] = (await staff.client.get<{ id: string; status: string }[]>(`${API}/b2b/${companyId}/purchase-requests?requesterId=${staff.userId}&status=pending`)).body;
  expect((await approver.client.post(`${API}/b2b/purchase-requests/${request.id}/approve`)).status).toBe(204);
  return request.id;
}

let testBus: TestBus | undefined;
let store: E2eStore | undefined;
let world: { owner: Member; companyId: string; finance: Member; staff: Member } | undefined;

afterAll(async () => {
  await testBus?.close();
});

describe('B2B through the gateway', () => {
  test(
    'register → approve (e-mail) → invite (e-mail, setup) → request → approve → B2B submit → pay → paid, listed, dashboards',
    withLogs(env, async () => {
      const e2e = env();
      testBus = await connectStackBus(e2e);
      store = await openStore(e2e, testBus, { basePrice: PRICE, stock: 100 }, 7);
      const owner = await signedUp(e2e, 'b2b-owner');

      expect((await owner.client.post(`${API}/b2b/companies`, company)).status).toBe(201);
      // pending: no B2B context yet, no requests, tax completeness answers complete
      expect((await owner.client.get(`${API}/b2b/context`)).body).toBeNull();
      const admin = await signedInAdmin(e2e);
      const pending = await admin.get<{ id: string; owner: { email: string } }[]>(`${API}/admin/b2b/companies/pending`);
      const row = pending.body.find((c) => c.owner.email === owner.email);
      expect(row).toBeDefined();
      const companyId = row!.id;
      expect((await owner.client.get(`${API}/b2b/${companyId}/tax-completeness`)).body).toMatchObject({ complete: true });
      expect((await owner.client.post(`${API}/b2b/purchase-requests`, { productId: store.productId, quantity: 1 })).status).toBe(404);
      // the owner cannot approve it; the admin gate of the gateway answers 403
      expect((await owner.client.post(`${API}/admin/b2b/companies/${companyId}/approve`)).status).toBe(403);

      expect((await admin.post(`${API}/admin/b2b/companies/${companyId}/approve`)).status).toBe(204);
      const approvalMail = await e2e.smtp.waitFor((m) => m.to.includes(owner.email) && /approved/.test(m.subject), 30_000);
      expect(approvalMail.subject).toBe(`${company.name} is approved on Pasar`);
      expect((await admin.post<Problem>(`${API}/admin/b2b/companies/${companyId}/approve`)).status).toBe(409);

      const context = await owner.client.get<{ role: string; taxComplete: boolean }>(`${API}/b2b/context`);
      expect(context.body).toMatchObject({ companyId, role: 'company_admin', taxComplete: false });
      expect((await owner.client.patch(`${API}/b2b/companies/${companyId}`, companyEdit)).status).toBe(204);
      expect((await owner.client.get(`${API}/b2b/${companyId}/company-details`)).body).toMatchObject({ tin: 'C98765432', msicCode: '47190' });

      const finance = await invited(e2e, owner.client, companyId, 'finance', 'b2b-finance');
      const staff = await invited(e2e, owner.client, companyId, 'staff', 'b2b-staff');
      world = { owner, companyId, finance, staff };
      const team = await owner.client.get<{ email: string; status: string }[]>(`${API}/b2b/${companyId}/team`);
      expect(team.body.filter((m) => m.status === 'active')).toHaveLength(3);

      const requestId = await raisedAndApproved(staff, owner, companyId, store.productId, 3);
      const ready = await finance.client.get<{ id: string; unit_price: string; store_id: string }[]>(`${API}/b2b/${companyId}/approved-for-checkout`);
      expect(ready.body).toEqual([expect.objectContaining({ id: requestId, unit_price: PRICE, store_id: store.storeId })]);
      // staff may not check out
      expect((await b2bSubmit(staff.client, { purchaseRequestIds: [requestId] })).status).toBe(403);

      const placed = await b2bSubmit(finance.client, { purchaseRequestIds: [requestId] }, `b2b-e2e-${randomUUID()}`);
      expect(placed.status).toBe(201);
      // 3 × 125.40 + shipping 7.00
      expect(placed.body.total).toBe('383.20');
      const { orderId } = placed.body;
      const initiate = await finance.client.post<{ paymentUrl: string }>(`${API}/checkout/payment/initiate/${orderId}`);
      expect(initiate.status).toBe(200);

      const paidRequest = await pollUntil<{ status: string; order_id: string | null }>(staff.client, `/b2b/purchase-requests/${requestId}`, (r) => r.status === 'paid');
      expect(paidRequest.order_id).toBe(orderId);
      const orders = await pollUntil<{ id: string; status: string; totalAmount: string; subOrderCount: number; requestedBy: string }[]>(
        finance.client,
        `/b2b/${companyId}/orders`,
        (list) => list.some((o) => o.id === orderId && o.status === 'paid'),
      );
      expect(orders.find((o) => o.id === orderId)).toMatchObject({ totalAmount: '383.20', subOrderCount: 1 });
      const stats = await finance.client.get<{ totalSpendThisMonth: string; teamSize: number }>(`${API}/b2b/${companyId}/finance-stats`);
      expect(stats.body).toMatchObject({ totalSpendThisMonth: '383.20', teamSize: 3, pendingPayments: 0 });
      const month = new Date().toISOString().slice(0, 7);
      expect((await owner.client.get(`${API}/b2b/${companyId}/monthly-spend`)).body).toEqual([{ month, total_spend: '383.20' }]);
      expect((await owner.client.get(`${API}/b2b/${companyId}/dashboard-stats`)).body).toMatchObject({ scope: 'company', paidCount: 1 });
      expect((await staff.client.get(`${API}/b2b/${companyId}/dashboard-stats`)).body).toEqual({ role: 'staff', scope: 'own', pendingCount: 0 });
      const detail = await owner.client.get<{ isB2b: boolean; buyerTin: string; purchaseRequestMeta: { id: string; status: string }[] }>(`${API}/b2b/orders/${orderId}`);
      expect(detail.body).toMatchObject({ id: orderId, isB2b: true, buyerTin: 'C98765432', status: 'paid', purchaseRequestMeta: [{ id: requestId, status: 'paid' }] });
      const history = await owner.client.get<{ id: string }[]>(`${API}/b2b/${companyId}/procurement-history`);
      expect(history.body.map((r) => r.id)).toContain(requestId);
      // the OpenAPI document lists the B2B endpoints
      const doc = await owner.client.get<{ paths: Record<string, unknown> }>(`${API}/openapi.json`);
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/b2b/context', '/b2b/{companyId}/finance-stats', '/checkout/b2b/submit', '/admin/b2b/companies/{id}/reject']));
    }),
    240_000,
  );

  test(
    'two concurrent B2B submits of one request: exactly one order',
    withLogs(env, async () => {
      const { owner, companyId, finance, staff } = world!;
      const requestId = await raisedAndApproved(staff, owner, companyId, store!.productId, 1);
      const [a, b] = await Promise.all([b2bSubmit(finance.client, { purchaseRequestIds: [requestId] }), b2bSubmit(owner.client, { purchaseRequestIds: [requestId] })]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const paid = await pollUntil<{ status: string; order_id: string }>(staff.client, `/b2b/purchase-requests/${requestId}`, (r) => r.status === 'paid');
      expect(paid.order_id).toBe((a.status === 201 ? a : b).body.orderId);
      const orders = await pollUntil<{ id: string }[]>(finance.client, `/b2b/${companyId}/orders`, (list) => list.length === 2);
      expect(orders.map((o) => o.id)).toContain(paid.order_id);
    }),
    120_000,
  );

  test(
    'an unconfirmed reservation is released after the TTL',
    withLogs(env, async () => {
      const { owner, companyId, finance, staff } = world!;
      const requestId = await raisedAndApproved(staff, owner, companyId, store!.productId, 1);
      // a checkout that reserved and then never placed its order (crashed between the steps)
      await callRpc(testBus!.bus, b2bReserveRequests, { reservationId: randomUUID(), userId: finance.userId, purchaseRequestIds: [requestId] });
      expect((await staff.client.get<{ status: string }>(`${API}/b2b/purchase-requests/${requestId}`)).body.status).toBe('checkout_pending');
      expect((await b2bSubmit(owner.client, { purchaseRequestIds: [requestId] })).status).toBe(409);
      await pollUntil<{ status: string }>(staff.client, `/b2b/purchase-requests/${requestId}`, (r) => r.status === 'approved', 20_000);
      const placed = await b2bSubmit(finance.client, { purchaseRequestIds: [requestId] });
      expect(placed.status).toBe(201);
    }),
    120_000,
  );

  test(
    'the vendor raises a price after approval: submit 409 price_changed, the request is approved again at the new price, the order placed at it',
    withLogs(env, async () => {
      const e2e = env();
      const { owner, companyId, finance, staff } = world!;
      const raisedStore = await openStore(e2e, testBus!, { basePrice: '40.00', stock: 50 }, 5);
      const raised = await raisedAndApproved(staff, owner, companyId, raisedStore.productId, 2);
      const unchanged = await raisedAndApproved(staff, owner, companyId, store!.productId, 1);
      const update = await raisedStore.vendor.put(`${API}/vendor/products/${raisedStore.productId}`, liveProductBody({ name: 'Kopi Tenom (new season)', basePrice: '45.50', stock: 50 }));
      expect(update.status).toBe(200);
      const key = `b2b-e2e-price-${randomUUID()}`;
      const refused = await b2bSubmit(finance.client, { purchaseRequestIds: [raised, unchanged] }, key);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        code: 'price_changed',
        errors: [{ path: ['purchaseRequestIds', raised], code: 'price_changed', approvedPrice: '40.00', currentPrice: '45.50' }],
      });
      // nothing placed; the changed request awaits its approver at the new price, the other is approved again
      expect((await staff.client.get(`${API}/b2b/purchase-requests/${raised}`)).body).toMatchObject({ status: 'pending', unit_price: '45.50' });
      expect((await staff.client.get(`${API}/b2b/purchase-requests/${unchanged}`)).body).toMatchObject({ status: 'approved', unit_price: PRICE });
      expect((await b2bSubmit(finance.client, { purchaseRequestIds: [raised, unchanged] }, key)).status).toBe(409);

      expect((await owner.client.post(`${API}/b2b/purchase-requests/${raised}/approve`)).status).toBe(204);
      const placed = await b2bSubmit(finance.client, { purchaseRequestIds: [raised, unchanged] }, key);
      expect(placed.status).toBe(201);
      // 2 × 45.50 + 5.00 shipping, 1 × 125.40 + 7.00 shipping
      expect(placed.body.total).toBe('228.40');
      for (const id of [raised, unchanged]) {
        const request = await pollUntil<{ status: string; order_id: string | null }>(staff.client, `/b2b/purchase-requests/${id}`, (r) => r.status === 'paid');
        expect(request.order_id).toBe(placed.body.orderId);
      }
      const detail = await owner.client.get<{ subOrders: { items: { unitPrice: string }[] }[] }>(`${API}/b2b/orders/${placed.body.orderId}`);
      expect(detail.body.subOrders.flatMap((s) => s.items.map((i) => i.unitPrice)).sort()).toEqual([PRICE, '45.50']);
    }),
    120_000,
  );

  test(
    'a rejected company: rejection e-mail with the reason, no B2B access, reviewed only once; isolation between companies',
    withLogs(env, async () => {
      const e2e = env();
      const { companyId } = world!;
      const applicant = await signedUp(e2e, 'b2b-rejected');
      expect((await applicant.client.post(`${API}/b2b/companies`, { ...company, name: 'Syarikat Ditolak' })).status).toBe(201);
      const admin = await signedInAdmin(e2e);
      const all = await admin.get<{ id: string; owner_id: string; status: string }[]>(`${API}/admin/b2b/companies?status=pending`);
      const rejectedId = all.body.find((c) => c.owner_id === applicant.userId)!.id;
      expect((await admin.post(`${API}/admin/b2b/companies/${rejectedId}/reject`, { reason: 'SSM number not found' })).status).toBe(204);
      const mail = await e2e.smtp.waitFor((m) => m.to.includes(applicant.email) && /not approved/.test(m.subject), 30_000);
      expect(mail.raw.replace(/=\r?\n/g, '')).toContain('SSM number not found');
      expect((await admin.post(`${API}/admin/b2b/companies/${rejectedId}/approve`)).status).toBe(409);
      expect((await admin.get<{ status: string; rejection_reason: string }>(`${API}/admin/b2b/companies/${rejectedId}`)).body).toMatchObject({ status: 'rejected', rejection_reason: 'SSM number not found' });
      expect((await applicant.client.get(`${API}/b2b/context`)).body).toBeNull();
      expect((await applicant.client.get(`${API}/b2b/${rejectedId}/tax-completeness`)).body).toMatchObject({ complete: true });
      expect((await applicant.client.get(`${API}/b2b/${rejectedId}/team`)).status).toBe(404);

      // another customer sees nothing of the approved company; a vendor is refused; no session 401
      expect((await applicant.client.get(`${API}/b2b/${companyId}/orders`)).status).toBe(404);
      expect((await applicant.client.get(`${API}/b2b/${companyId}/purchase-requests`)).status).toBe(404);
      expect((await store!.vendor.get(`${API}/b2b/${companyId}/orders`)).status).toBe(403);
      expect((await e2e.client().get(`${API}/b2b/context`)).status).toBe(401);
    }),
    120_000,
  );

  test(
    'the demo seed: an approved company with a company_admin and a staff member who can sign in; a second run changes nothing',
    withLogs(env, async () => {
      const e2e = env();
      const options = { bus: testBus!.bus, gatewayUrl: e2e.stack.gatewayUrl, admin: e2e.stack.admin, password: 'demo-password-2026' };
      const first = await seedB2bDemo(options);
      const second = await seedB2bDemo(options);
      expect(second.companyId).toBe(first.companyId);
      const roles: Record<string, string> = {};
      for (const email of [DEMO_B2B_ADMIN_EMAIL, DEMO_B2B_STAFF_EMAIL]) {
        const client = e2e.client();
        expect((await client.post(`${API}/auth/sign-in`, { email, password: 'demo-password-2026' })).status).toBe(200);
        const context = await client.get<{ companyId: string; role: string; taxComplete: boolean }>(`${API}/b2b/context`);
        expect(context.body).toMatchObject({ companyId: first.companyId, taxComplete: true });
        roles[email] = context.body.role;
      }
      expect(roles).toEqual({ [DEMO_B2B_ADMIN_EMAIL]: 'company_admin', [DEMO_B2B_STAFF_EMAIL]: 'staff' });
    }),
    120_000,
  );
});
