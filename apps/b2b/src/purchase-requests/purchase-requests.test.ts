import { customer, givenApprovedCompany, givenApprovedRequest, givenMember, givenRequest, useTestB2b } from '../../test/b2b';

const env = useTestB2b();

describe('POST /b2b/purchase-requests', () => {
  test('an active member raises a pending request with the price snapshot (variant override), store and weight', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const variantId = '11111111-2222-4333-8444-555555555555';
    const product = t.peers.addProduct({ variantId, variantName: 'Black', unitPrice: '199.50', weightKg: '7.250', storeName: 'Kedai A' });
    const res = await t.call('POST', '/b2b/purchase-requests', company.members.staff, { productId: product.productId, variantId, quantity: 3, note: 'for the new office' });
    expect(res.status).toBe(201);
    const { id } = await t.b2b.prisma.purchaseRequest.findFirstOrThrow({ where: { requesterId: company.members.staff.userId } });
    const detail = await t.call('GET', `/b2b/purchase-requests/${id}`, company.members.approver);
    expect(detail).toMatchObject({
      status: 200,
      body: {
        id,
        status: 'pending',
        quantity: 3,
        unit_price: '199.50',
        note: 'for the new office',
        product_name: 'Office chair',
        variant_name: 'Black',
        productId: product.productId,
        variantId,
        requester_name: 'staff person',
        reviewer_name: null,
        order_id: null,
      },
    });
    const row = await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ storeId: product.storeId, storeName: 'Kedai A' });
    expect(row.weightKg?.toFixed(3)).toBe('7.250');
  });

  test('tax gate: a company without TIN and MSIC gets 400 tax_incomplete', async () => {
    const t = env();
    const company = await givenApprovedCompany(t, { taxIds: false });
    const res = await t.call('POST', '/b2b/purchase-requests', company.members.staff, { productId: t.peers.addProduct().productId, quantity: 1 });
    expect(res).toMatchObject({ status: 400, body: { code: 'tax_incomplete' } });
  });

  test('unknown product 404, not live 400 product_unavailable, bad quantity 400; non-member 404, pending member 403', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const staff = company.members.staff;
    expect((await t.call('POST', '/b2b/purchase-requests', staff, { productId: customer().userId, quantity: 1 })).status).toBe(404);
    const draft = t.peers.addProduct({ status: 'draft' });
    expect((await t.call('POST', '/b2b/purchase-requests', staff, { productId: draft.productId, quantity: 1 })).body.code).toBe('product_unavailable');
    const product = t.peers.addProduct();
    for (const quantity of [0, -1, 1.5, 10_000, '2']) {
      expect((await t.call('POST', '/b2b/purchase-requests', staff, { productId: product.productId, quantity })).status).toBe(400);
    }
    expect((await t.call('POST', '/b2b/purchase-requests', staff, { productId: 'nope', quantity: 1 })).status).toBe(400);
    expect((await t.call('POST', '/b2b/purchase-requests', staff, { productId: product.productId, quantity: 1, note: 'a\u0000b' })).status).toBe(400);
    expect((await t.call('POST', '/b2b/purchase-requests', customer(), { productId: product.productId, quantity: 1 })).status).toBe(404);
    const pending = await givenMember(t, company.companyId, 'staff', 'pending');
    expect(await t.call('POST', '/b2b/purchase-requests', pending, { productId: product.productId, quantity: 1 })).toMatchObject({ status: 403, body: { code: 'membership_pending' } });
    expect((await t.call('POST', '/b2b/purchase-requests', { userId: staff.userId, role: 'vendor' }, { productId: product.productId, quantity: 1 })).status).toBe(403);
    expect(await t.b2b.prisma.purchaseRequest.count({ where: { companyId: company.companyId } })).toBe(0);
  });
});

describe('review and cancel', () => {
  test('an approver approves (reviewer stamped); approving again is 409 not_pending', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenRequest(t, company.members.staff);
    expect((await t.call('POST', `/b2b/purchase-requests/${id}/approve`, company.members.approver)).status).toBe(204);
    const detail = await t.call('GET', `/b2b/purchase-requests/${id}`, company.members.staff);
    expect(detail.body).toMatchObject({ status: 'approved', reviewer_name: 'approver person' });
    expect(detail.body.reviewed_at).toEqual(expect.any(String));
    expect(await t.call('POST', `/b2b/purchase-requests/${id}/approve`, company.owner)).toMatchObject({ status: 409, body: { code: 'not_pending' } });
    expect(await t.call('POST', `/b2b/purchase-requests/${id}/reject`, company.owner, { note: 'x' })).toMatchObject({ status: 409, body: { code: 'not_pending' } });
  });

  test('the company_admin rejects with a note; a note is required', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenRequest(t, company.members.staff);
    expect((await t.call('POST', `/b2b/purchase-requests/${id}/reject`, company.owner, {})).status).toBe(400);
    expect((await t.call('POST', `/b2b/purchase-requests/${id}/reject`, company.owner, { note: 'over budget' })).status).toBe(204);
    expect((await t.call('GET', `/b2b/purchase-requests/${id}`, company.owner)).body).toMatchObject({ status: 'rejected', review_note: 'over budget' });
  });

  test('staff and finance cannot review (403 b2b_role_forbidden); nobody reviews their own request (403 own_request)', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenRequest(t, company.members.staff);
    for (const role of ['staff', 'finance'] as const) {
      expect(await t.call('POST', `/b2b/purchase-requests/${id}/approve`, company.members[role])).toMatchObject({ status: 403, body: { code: 'b2b_role_forbidden' } });
    }
    const own = await givenRequest(t, company.members.approver);
    expect(await t.call('POST', `/b2b/purchase-requests/${own}/approve`, company.members.approver)).toMatchObject({ status: 403, body: { code: 'own_request' } });
    expect((await t.call('POST', `/b2b/purchase-requests/${own}/approve`, company.owner)).status).toBe(204);
  });

  test('concurrent approve and reject: exactly one wins', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenRequest(t, company.members.staff);
    const results = await Promise.all([
      t.call('POST', `/b2b/purchase-requests/${id}/approve`, company.members.approver),
      t.call('POST', `/b2b/purchase-requests/${id}/reject`, company.owner, { note: 'no' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([204, 409]);
  });

  test('the requester cancels while pending or approved; others 403 not_requester; a rejected one 409 not_cancellable', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const pending = await givenRequest(t, company.members.staff);
    expect(await t.call('POST', `/b2b/purchase-requests/${pending}/cancel`, company.owner)).toMatchObject({ status: 403, body: { code: 'not_requester' } });
    expect((await t.call('POST', `/b2b/purchase-requests/${pending}/cancel`, company.members.staff)).status).toBe(204);
    const approved = await givenApprovedRequest(t, company);
    expect((await t.call('POST', `/b2b/purchase-requests/${approved}/cancel`, company.members.staff)).status).toBe(204);
    const rejected = await givenRequest(t, company.members.staff);
    await t.call('POST', `/b2b/purchase-requests/${rejected}/reject`, company.owner, { note: 'no' });
    expect(await t.call('POST', `/b2b/purchase-requests/${rejected}/cancel`, company.members.staff)).toMatchObject({ status: 409, body: { code: 'not_cancellable' } });
    expect((await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id: approved } })).status).toBe('cancelled');
  });

  test("another company's request is 404 for every action (existence not revealed)", async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    const id = await givenRequest(t, company.members.staff);
    expect((await t.call('GET', `/b2b/purchase-requests/${id}`, other.owner)).status).toBe(404);
    expect((await t.call('POST', `/b2b/purchase-requests/${id}/approve`, other.owner)).status).toBe(404);
    expect((await t.call('POST', `/b2b/purchase-requests/${id}/reject`, other.owner, { note: 'x' })).status).toBe(404);
    expect((await t.call('POST', `/b2b/purchase-requests/${id}/cancel`, other.members.staff)).status).toBe(404);
    expect((await t.call('GET', `/b2b/purchase-requests/${customer().userId}`, company.owner)).status).toBe(404);
    expect((await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).status).toBe('pending');
  });
});

describe('lists and dashboards', () => {
  test('list: newest first, status and requesterId filters, paged; recent: limit and the staff filter; dashboard counts by role', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    const staff = company.members.staff;
    const first = await givenRequest(t, staff);
    const second = await givenApprovedRequest(t, company);
    const byFinance = await givenRequest(t, company.members.finance);
    const rejected = await givenRequest(t, staff);
    await t.call('POST', `/b2b/purchase-requests/${rejected}/reject`, company.members.approver, { note: 'no' });
    await givenRequest(t, other.members.staff);

    const all = await t.call('GET', `/b2b/${company.companyId}/purchase-requests`, staff);
    expect(all.body.map((r: { id: string }) => r.id)).toEqual([rejected, byFinance, second, first]);
    expect(all.body[0]).toMatchObject({ requester_name: 'staff person', requester_email: expect.stringContaining('@example.test'), reviewer_name: 'approver person', review_note: 'no' });
    const approved = await t.call('GET', `/b2b/${company.companyId}/purchase-requests?status=approved`, staff);
    expect(approved.body.map((r: { id: string }) => r.id)).toEqual([second]);
    const mine = await t.call('GET', `/b2b/${company.companyId}/purchase-requests?requesterId=${company.members.finance.userId}`, staff);
    expect(mine.body.map((r: { id: string }) => r.id)).toEqual([byFinance]);
    expect((await t.call('GET', `/b2b/${company.companyId}/purchase-requests?page=2&limit=3`, staff)).body.map((r: { id: string }) => r.id)).toEqual([first]);
    for (const bad of ['status=weird', 'requesterId=x', 'limit=0', 'page=0']) {
      expect((await t.call('GET', `/b2b/${company.companyId}/purchase-requests?${bad}`, staff)).status).toBe(400);
    }

    const recentStaff = await t.call('GET', `/b2b/${company.companyId}/recent-requests`, staff);
    expect(recentStaff.body.map((r: { id: string }) => r.id)).toEqual([rejected, second, first]);
    expect(recentStaff.body[0]).toEqual({ id: rejected, product_name: 'Office chair', quantity: 2, requester_name: 'staff person', status: 'rejected', created_at: expect.any(String) });
    const recentAdmin = await t.call('GET', `/b2b/${company.companyId}/recent-requests?limit=2`, company.owner);
    expect(recentAdmin.body.map((r: { id: string }) => r.id)).toEqual([rejected, byFinance]);
    expect((await t.call('GET', `/b2b/${company.companyId}/recent-requests?limit=51`, company.owner)).status).toBe(400);

    expect((await t.call('GET', `/b2b/${company.companyId}/dashboard-stats`, staff)).body).toEqual({ role: 'staff', scope: 'own', pendingCount: 1 });
    expect((await t.call('GET', `/b2b/${company.companyId}/dashboard-stats`, company.members.approver)).body).toEqual({
      role: 'approver',
      scope: 'company',
      pendingCount: 2,
      approvedCount: 1,
      rejectedCount: 1,
      paidCount: 0,
    });

    const ready = await t.call('GET', `/b2b/${company.companyId}/approved-for-checkout`, company.members.finance);
    expect(ready.body).toEqual([
      expect.objectContaining({ id: second, unit_price: '249.90', weight_kg: 12.5, store_name: 'Kedai Perabot', requester_name: 'staff person', store_id: expect.any(String) }),
    ]);
    const history = await t.call('GET', `/b2b/${company.companyId}/procurement-history`, staff);
    expect(history.body.map((r: { id: string }) => r.id)).toEqual([rejected]);
    expect(history.body[0]).toMatchObject({ status: 'rejected', unit_price: '249.90', requester_name: 'staff person', order_id: null, updated_at: expect.any(String) });
  });
});
