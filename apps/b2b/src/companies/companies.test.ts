import { b2bCompanyReviewed, notifyEmailRequested } from '@pasar/contracts';
import { admin, companyBody, companyUpdate, customer, givenApprovedCompany, outboxEvents, useTestB2b, type TestB2b } from '../../test/b2b';

const env = useTestB2b({ PUBLIC_STORAGE_URL: 'https://cdn.pasar.example/public' });

async function registered(t: TestB2b, body = companyBody()) {
  const ownerUser = t.peers.addUser({ fullName: 'Owner Person', email: `owner-${Math.random().toString(36).slice(2)}@example.test` });
  const owner = customer(ownerUser.id);
  const res = await t.call('POST', '/b2b/companies', owner, body);
  expect(res.status).toBe(201);
  const company = await t.b2b.prisma.company.findFirstOrThrow({ where: { ownerId: owner.userId } });
  return { owner, ownerUser, company };
}

describe('POST /b2b/companies', () => {
  test('a customer registers a company: pending, fields stored, Location answered', async () => {
    const t = env();
    const { company } = await registered(t, companyBody({ contact_email: '  Buyer@Maju.Example ' }));
    expect(company).toMatchObject({ status: 'pending', name: 'Syarikat Maju Sdn Bhd', ssmNumber: '202001012345', contactEmail: 'buyer@maju.example', tin: null });
  });

  test.each([
    ['a bad e-mail', { contact_email: 'not-an-email' }],
    ['an empty name', { name: '   ' }],
    ['a missing field', { city: undefined }],
    ['an unknown field', { extra: 'x' }],
    ['a wrong type', { postcode: 40000 }],
    ['a huge string', { industry: 'x'.repeat(5000) }],
    ['a NUL character', { name: 'Maju\u0000 Sdn Bhd' }, 'nul_character'],
  ])('%s answers 400 and writes nothing', async (_, overrides, code = 'validation_failed') => {
    const t = env();
    const owner = customer();
    const res = await t.call('POST', '/b2b/companies', owner, { ...companyBody(), ...overrides });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(await t.b2b.prisma.company.count({ where: { ownerId: owner.userId } })).toBe(0);
  });

  test('vendors and administrators get 403, no identity 401', async () => {
    const t = env();
    expect((await t.call('POST', '/b2b/companies', { userId: customer().userId, role: 'vendor' }, companyBody())).status).toBe(403);
    expect((await t.call('POST', '/b2b/companies', admin(), companyBody())).status).toBe(403);
    expect((await t.call('POST', '/b2b/companies', null, companyBody())).status).toBe(401);
  });

  test('a second pending company of the same owner is 409 company_exists; after a rejection they may register again', async () => {
    const t = env();
    const { owner, company } = await registered(t);
    const again = await t.call('POST', '/b2b/companies', owner, companyBody());
    expect(again).toMatchObject({ status: 409, body: { code: 'company_exists' } });
    await t.call('POST', `/admin/b2b/companies/${company.id}/reject`, admin(), { reason: 'SSM number does not match' });
    expect((await t.call('POST', '/b2b/companies', owner, companyBody())).status).toBe(201);
  });

  test('a member of another company cannot register one (409 already_in_company)', async () => {
    const t = env();
    const other = await givenApprovedCompany(t);
    const res = await t.call('POST', '/b2b/companies', other.members.staff, companyBody());
    expect(res).toMatchObject({ status: 409, body: { code: 'already_in_company' } });
  });
});

describe('administrator review', () => {
  test('lists newest first with owner, filters by status, pending list, detail with ssm_cert_url', async () => {
    const t = env();
    const first = await registered(t, companyBody({ name: 'First Co' }));
    const second = await registered(t, companyBody({ name: 'Second Co' }));
    await t.b2b.prisma.company.update({ where: { id: second.company.id }, data: { ssmCertPath: 'certs/second.pdf' } });
    await t.call('POST', `/admin/b2b/companies/${first.company.id}/approve`, admin());

    const all = await t.call('GET', '/admin/b2b/companies', admin());
    expect(all.status).toBe(200);
    const ids = all.body.map((c: { id: string }) => c.id);
    expect(ids.indexOf(second.company.id)).toBeLessThan(ids.indexOf(first.company.id));
    const secondRow = all.body.find((c: { id: string }) => c.id === second.company.id);
    expect(secondRow).toMatchObject({
      name: 'Second Co',
      status: 'pending',
      owner_id: second.owner.userId,
      owner: { id: second.owner.userId, full_name: 'Owner Person', email: second.ownerUser.email },
      address: '12 Jalan Industri, 40000 Shah Alam, Selangor',
      ssm_cert_path: 'certs/second.pdf',
      ssm_cert_url: 'https://cdn.pasar.example/public/certs/second.pdf',
    });

    const approved = await t.call('GET', '/admin/b2b/companies?status=approved', admin());
    expect(approved.body.map((c: { id: string }) => c.id)).toContain(first.company.id);
    expect(approved.body.every((c: { status: string }) => c.status === 'approved')).toBe(true);

    const pending = await t.call('GET', '/admin/b2b/companies/pending', admin());
    expect(pending.body.map((c: { id: string }) => c.id)).toContain(second.company.id);
    expect(pending.body.every((c: { status: string }) => c.status === 'pending')).toBe(true);

    const limited = await t.call('GET', '/admin/b2b/companies?limit=1', admin());
    expect(limited.body).toHaveLength(1);

    const detail = await t.call('GET', `/admin/b2b/companies/${first.company.id}`, admin());
    expect(detail).toMatchObject({ status: 200, body: { id: first.company.id, status: 'approved', ssm_cert_url: null, owner: { full_name: 'Owner Person' } } });
  });

  test('bad filters and ids answer 400, an unknown id 404, a customer 403', async () => {
    const t = env();
    expect((await t.call('GET', '/admin/b2b/companies?status=weird', admin())).status).toBe(400);
    expect((await t.call('GET', '/admin/b2b/companies?limit=201', admin())).status).toBe(400);
    expect((await t.call('GET', '/admin/b2b/companies/not-a-uuid', admin())).status).toBe(400);
    expect((await t.call('GET', `/admin/b2b/companies/${customer().userId}`, admin())).status).toBe(404);
    expect((await t.call('GET', '/admin/b2b/companies', customer())).status).toBe(403);
    expect((await t.call('POST', `/admin/b2b/companies/${customer().userId}/approve`, customer())).status).toBe(403);
  });

  test('approve: reviewed_by/at stamped, the owner becomes an active company_admin, the approval e-mail is queued once', async () => {
    const t = env();
    const { owner, ownerUser, company } = await registered(t);
    const reviewer = admin();
    expect((await t.call('POST', `/admin/b2b/companies/${company.id}/approve`, reviewer)).status).toBe(204);
    const after = await t.b2b.prisma.company.findUniqueOrThrow({ where: { id: company.id } });
    expect(after).toMatchObject({ status: 'approved', reviewedBy: reviewer.userId });
    expect(after.reviewedAt).toBeInstanceOf(Date);
    const member = await t.b2b.prisma.companyMember.findUniqueOrThrow({ where: { companyId_userId: { companyId: company.id, userId: owner.userId } } });
    expect(member).toMatchObject({ b2bRole: 'company_admin', status: 'active' });

    const reviewed = (await outboxEvents(t, b2bCompanyReviewed)).filter((e) => e.companyId === company.id);
    expect(reviewed).toEqual([expect.objectContaining({ approved: true, reason: null, ownerEmail: ownerUser.email, ownerName: 'Owner Person' })]);
    const emails = (await outboxEvents(t, notifyEmailRequested)).filter((e) => e.to === ownerUser.email);
    expect(emails).toEqual([
      expect.objectContaining({ template: 'company_reviewed', vars: { fullName: 'Owner Person', companyName: company.name, approved: true, reason: null } }),
    ]);
  });

  test('approve or reject a reviewed company is 409 not_pending and changes nothing', async () => {
    const t = env();
    const { company } = await registered(t);
    await t.call('POST', `/admin/b2b/companies/${company.id}/approve`, admin());
    expect(await t.call('POST', `/admin/b2b/companies/${company.id}/approve`, admin())).toMatchObject({ status: 409, body: { code: 'not_pending' } });
    expect(await t.call('POST', `/admin/b2b/companies/${company.id}/reject`, admin(), { reason: 'late' })).toMatchObject({ status: 409, body: { code: 'not_pending' } });
    expect((await t.b2b.prisma.company.findUniqueOrThrow({ where: { id: company.id } })).status).toBe('approved');
  });

  test('reject stores the reason, queues the rejection e-mail, and needs a reason', async () => {
    const t = env();
    const { ownerUser, company } = await registered(t);
    expect((await t.call('POST', `/admin/b2b/companies/${company.id}/reject`, admin(), {})).status).toBe(400);
    expect((await t.call('POST', `/admin/b2b/companies/${company.id}/reject`, admin(), { reason: 'SSM certificate unreadable' })).status).toBe(204);
    expect(await t.b2b.prisma.company.findUniqueOrThrow({ where: { id: company.id } })).toMatchObject({ status: 'rejected', rejectionReason: 'SSM certificate unreadable' });
    expect(await t.b2b.prisma.companyMember.count({ where: { companyId: company.id } })).toBe(0);
    const emails = (await outboxEvents(t, notifyEmailRequested)).filter((e) => e.to === ownerUser.email);
    expect(emails).toEqual([expect.objectContaining({ vars: expect.objectContaining({ approved: false, reason: 'SSM certificate unreadable' }) })]);
  });

  test('concurrent approve and reject: exactly one wins', async () => {
    const t = env();
    const { company } = await registered(t);
    const results = await Promise.all([
      t.call('POST', `/admin/b2b/companies/${company.id}/approve`, admin()),
      t.call('POST', `/admin/b2b/companies/${company.id}/reject`, admin(), { reason: 'no' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([204, 409]);
    expect((await outboxEvents(t, b2bCompanyReviewed)).filter((e) => e.companyId === company.id)).toHaveLength(1);
  });
});

describe('PATCH /b2b/companies/{id}, company-details, tax-completeness, context', () => {
  test('the company_admin sets TIN (normalised) and MSIC; details and completeness follow', async () => {
    const t = env();
    const company = await givenApprovedCompany(t, { taxIds: false });
    const before = await t.call('GET', `/b2b/${company.companyId}/tax-completeness`, company.owner);
    expect(before.body).toEqual({ complete: false, missingTin: true, missingMsic: true });
    expect((await t.call('GET', '/b2b/context', company.owner)).body).toMatchObject({ companyId: company.companyId, role: 'company_admin', taxComplete: false });

    const res = await t.call('PATCH', `/b2b/companies/${company.companyId}`, company.owner, companyUpdate({ tin: 'c-0012345678', msicCode: '47 711', city: 'Klang' }));
    expect(res.status).toBe(204);
    const details = await t.call('GET', `/b2b/${company.companyId}/company-details`, company.members.staff);
    expect(details.body).toMatchObject({ id: company.companyId, tin: 'C12345678', msicCode: '47711', city: 'Klang', status: 'approved', ssmNumber: '202001012345' });
    expect((await t.call('GET', `/b2b/${company.companyId}/tax-completeness`, company.members.finance)).body).toEqual({ complete: true, missingTin: false, missingMsic: false });
    expect((await t.call('GET', '/b2b/context', company.members.staff)).body).toMatchObject({ role: 'staff', memberStatus: 'active', taxComplete: true, companyName: 'Syarikat Maju Sdn Bhd' });
  });

  test.each([
    ['an invalid TIN', { tin: 'XX123' }, 'invalid_tin'],
    ['an invalid MSIC', { msicCode: '1234' }, 'invalid_msic'],
    ['a missing TIN', { tin: '' }, 'validation_failed'],
  ])('%s answers 400 with its code', async (_, overrides, code) => {
    const t = env();
    const company = await givenApprovedCompany(t, { taxIds: false });
    const res = await t.call('PATCH', `/b2b/companies/${company.companyId}`, company.owner, companyUpdate(overrides));
    expect(res).toMatchObject({ status: 400, body: { code } });
    expect((await t.b2b.prisma.company.findUniqueOrThrow({ where: { id: company.companyId } })).tin).toBeNull();
  });

  test('a body companyId different from the path is 400; other roles 403; another company 404', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    expect((await t.call('PATCH', `/b2b/companies/${company.companyId}`, company.owner, { ...companyUpdate(), companyId: other.companyId })).body.code).toBe('company_id_mismatch');
    expect((await t.call('PATCH', `/b2b/companies/${company.companyId}`, company.members.finance, companyUpdate())).status).toBe(403);
    expect((await t.call('PATCH', `/b2b/companies/${company.companyId}`, other.owner, companyUpdate())).status).toBe(404);
  });

  test('pending and rejected companies answer complete=true to their owner; others get 404', async () => {
    const t = env();
    const pending = await registered(t);
    expect((await t.call('GET', `/b2b/${pending.company.id}/tax-completeness`, pending.owner)).body).toEqual({ complete: true, missingTin: true, missingMsic: true });
    expect((await t.call('GET', `/b2b/${pending.company.id}/tax-completeness`, customer())).status).toBe(404);
    const rejected = await registered(t);
    await t.call('POST', `/admin/b2b/companies/${rejected.company.id}/reject`, admin(), { reason: 'no' });
    expect((await t.call('GET', `/b2b/${rejected.company.id}/tax-completeness`, rejected.owner)).body.complete).toBe(true);
    // the owner of a pending company has no B2B context and no member access yet
    expect((await t.call('GET', '/b2b/context', pending.owner)).body).toBeNull();
    expect((await t.call('GET', `/b2b/${pending.company.id}/company-details`, pending.owner)).status).toBe(404);
  });

  test('context is null for a customer without a membership, and for pending or inactive members', async () => {
    const t = env();
    expect(await t.call('GET', '/b2b/context', customer())).toMatchObject({ status: 200, body: null });
    const company = await givenApprovedCompany(t);
    const member = await t.b2b.prisma.companyMember.findFirstOrThrow({ where: { companyId: company.companyId, userId: company.members.staff.userId } });
    await t.b2b.prisma.companyMember.update({ where: { id: member.id }, data: { status: 'inactive' } });
    expect((await t.call('GET', '/b2b/context', company.members.staff)).body).toBeNull();
    expect((await t.call('GET', `/b2b/${company.companyId}/company-details`, company.members.staff)).status).toBe(404);
    expect((await t.call('GET', '/b2b/context', { userId: company.owner.userId, role: 'vendor' })).status).toBe(403);
  });
});
