import { randomUUID } from 'node:crypto';
import {
  admin,
  companyBody,
  companyUpdate,
  confirmed,
  customer,
  givenApprovedCompany,
  givenApprovedRequest,
  givenCheckedOut,
  givenMember,
  givenRequest,
  useTestB2b,
  type Caller,
  type TestB2b,
  type TestCompany,
} from '../test/b2b';

/**
 * DESIGN §7 roles, for every b2b endpoint: company_admin, approver, finance, staff, a customer
 * who is no member, another company's admin, a vendor, and no session. 404 for company-scoped
 * resources outside the caller's company, 403 for a company role (or platform role) that may not,
 * 401 without identity.
 */
const env = useTestB2b();

type Who = 'company_admin' | 'approver' | 'finance' | 'staff' | 'non_member' | 'other_admin' | 'vendor' | 'anonymous';
const WHO: Who[] = ['company_admin', 'approver', 'finance', 'staff', 'non_member', 'other_admin', 'vendor', 'anonymous'];

interface World {
  t: TestB2b;
  company: TestCompany;
  other: TestCompany;
  requestId: string;
  orderId: string;
}

interface Row {
  name: string;
  /** Builds the call for this caller (fresh rows where the call changes state). */
  call: (w: World, who: Who) => Promise<{ method: string; path: string; body?: unknown }>;
  expect: Record<Who, number>;
}

const members = (ok: number, others: Partial<Record<Who, number>> = {}): Record<Who, number> => ({
  company_admin: ok,
  approver: ok,
  finance: ok,
  staff: ok,
  non_member: 404,
  other_admin: 404,
  vendor: 403,
  anonymous: 401,
  ...others,
});

const get = (path: (w: World) => string) => async (w: World) => ({ method: 'GET', path: path(w) });

const ROWS: Row[] = [
  { name: 'GET /b2b/context', call: get(() => '/b2b/context'), expect: members(200, { non_member: 200, other_admin: 200 }) },
  { name: 'GET purchase-requests', call: get((w) => `/b2b/${w.company.companyId}/purchase-requests`), expect: members(200) },
  { name: 'GET team', call: get((w) => `/b2b/${w.company.companyId}/team`), expect: members(200) },
  {
    name: 'POST team (invite)',
    call: async (w) => ({ method: 'POST', path: `/b2b/${w.company.companyId}/team`, body: { email: `inv-${randomUUID()}@example.test`, fullName: 'Invitee', b2bRole: 'staff' } }),
    expect: members(403, { company_admin: 202 }),
  },
  {
    name: 'DELETE team member (another member)',
    call: async (w) => {
      const fresh = await givenMember(w.t, w.company.companyId, 'staff');
      const member = await w.t.b2b.prisma.companyMember.findFirstOrThrow({ where: { userId: fresh.userId } });
      return { method: 'DELETE', path: `/b2b/${w.company.companyId}/team/${member.id}` };
    },
    expect: members(403, { company_admin: 204 }),
  },
  { name: 'GET /b2b/invitations', call: get(() => '/b2b/invitations'), expect: members(200, { non_member: 200, other_admin: 200 }) },
  { name: 'GET dashboard-stats', call: get((w) => `/b2b/${w.company.companyId}/dashboard-stats`), expect: members(200) },
  { name: 'GET orders', call: get((w) => `/b2b/${w.company.companyId}/orders`), expect: members(200) },
  { name: 'GET company-details', call: get((w) => `/b2b/${w.company.companyId}/company-details`), expect: members(200) },
  { name: 'GET tax-completeness', call: get((w) => `/b2b/${w.company.companyId}/tax-completeness`), expect: members(200) },
  { name: 'GET recent-requests', call: get((w) => `/b2b/${w.company.companyId}/recent-requests`), expect: members(200) },
  { name: 'GET finance-stats', call: get((w) => `/b2b/${w.company.companyId}/finance-stats`), expect: members(200, { approver: 403, staff: 403 }) },
  { name: 'GET monthly-spend', call: get((w) => `/b2b/${w.company.companyId}/monthly-spend`), expect: members(200, { approver: 403, staff: 403 }) },
  { name: 'GET procurement-history', call: get((w) => `/b2b/${w.company.companyId}/procurement-history`), expect: members(200) },
  { name: 'GET approved-for-checkout', call: get((w) => `/b2b/${w.company.companyId}/approved-for-checkout`), expect: members(200, { approver: 403, staff: 403 }) },
  // null instead of 404 for another company's order (spec); checked on the body below
  { name: 'GET /b2b/orders/{id}', call: get((w) => `/b2b/orders/${w.orderId}`), expect: members(200, { non_member: 200, other_admin: 200 }) },
  { name: 'GET /b2b/purchase-requests/{id}', call: get((w) => `/b2b/purchase-requests/${w.requestId}`), expect: members(200) },
  {
    name: 'POST /b2b/companies',
    call: async () => ({ method: 'POST', path: '/b2b/companies', body: companyBody() }),
    expect: members(409, { non_member: 201, other_admin: 409 }),
  },
  {
    name: 'POST /b2b/purchase-requests',
    call: async (w) => ({ method: 'POST', path: '/b2b/purchase-requests', body: { productId: w.t.peers.addProduct().productId, quantity: 1 } }),
    // the other company's admin raises a request in their own company
    expect: members(201, { other_admin: 201 }),
  },
  {
    name: 'POST approve',
    call: async (w) => ({ method: 'POST', path: `/b2b/purchase-requests/${await givenRequest(w.t, w.company.members.staff)}/approve` }),
    expect: members(403, { company_admin: 204, approver: 204 }),
  },
  {
    name: 'POST reject',
    call: async (w) => ({ method: 'POST', path: `/b2b/purchase-requests/${await givenRequest(w.t, w.company.members.staff)}/reject`, body: { note: 'no' } }),
    expect: members(403, { company_admin: 204, approver: 204 }),
  },
  {
    name: 'POST cancel (requester: staff)',
    call: async (w) => ({ method: 'POST', path: `/b2b/purchase-requests/${await givenRequest(w.t, w.company.members.staff)}/cancel` }),
    expect: members(403, { staff: 204 }),
  },
  {
    name: 'PATCH /b2b/companies/{id}',
    call: async (w) => ({ method: 'PATCH', path: `/b2b/companies/${w.company.companyId}`, body: companyUpdate() }),
    expect: members(403, { company_admin: 204 }),
  },
  ...(['', '/pending', '/{id}'] as const).map(
    (suffix): Row => ({
      name: `GET /admin/b2b/companies${suffix}`,
      call: get((w) => `/admin/b2b/companies${suffix.replace('{id}', w.company.companyId)}`),
      expect: members(403, { non_member: 403, other_admin: 403 }),
    }),
  ),
  ...(['approve', 'reject'] as const).map(
    (verb): Row => ({
      name: `POST /admin/b2b/companies/{id}/${verb}`,
      call: async (w) => ({ method: 'POST', path: `/admin/b2b/companies/${w.company.companyId}/${verb}`, body: verb === 'reject' ? { reason: 'x' } : undefined }),
      expect: members(403, { non_member: 403, other_admin: 403 }),
    }),
  ),
];

let world: World | undefined;
let callers: Record<Who, Caller | null>;

async function setUp(): Promise<World> {
  const t = env();
  const company = await givenApprovedCompany(t);
  const other = await givenApprovedCompany(t);
  const requestId = await givenApprovedRequest(t, company);
  const orderId = await givenCheckedOut(t, company, [requestId]);
  await confirmed(t, {
      orderId,
      shortId: 'PSR-ROLES1',
      customerId: company.owner.userId,
      isB2b: true,
      familyId: null,
      purchaseRequestIds: [requestId],
      buyerTin: 'C12345678',
      total: '499.80',
      shippingAddress: { fullName: 'A', phone: '1', addressLine1: 'x', addressLine2: null, city: 'c', postcode: '1', state: 's' },
      subOrders: [],
    createdAt: new Date().toISOString(),
  });
  callers = {
    ...company.members,
    non_member: customer(),
    other_admin: other.owner,
    vendor: { userId: randomUUID(), role: 'vendor' },
    anonymous: null,
  };
  return { t, company, other, requestId, orderId };
}

describe('role matrix', () => {
  beforeAll(async () => {
    world = await setUp();
  }, 60_000);

  describe.each(ROWS)('$name', (row) => {
    test.each(WHO)('%s', async (who) => {
      const w = world!;
      const { method, path, body } = await row.call(w, who);
      const res = await w.t.call(method, path, callers[who], body);
      expect({ who, status: res.status, code: res.body?.code }).toMatchObject({ who, status: row.expect[who] });
      if (row.name === 'GET /b2b/orders/{id}' && res.status === 200) {
        if (who === 'non_member' || who === 'other_admin') expect(res.body).toBeNull();
      }
      if (row.name === 'GET /b2b/context' && who === 'other_admin') expect(res.body.companyId).toBe(w.other.companyId);
    });
  });

  test('the administrator can do what the admin rows refuse everyone else', async () => {
    const w = world!;
    expect((await w.t.call('GET', '/admin/b2b/companies', admin())).status).toBe(200);
    expect((await w.t.call('GET', `/admin/b2b/companies/${w.company.companyId}`, admin())).body.id).toBe(w.company.companyId);
  });
});
