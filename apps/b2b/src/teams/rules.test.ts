import { inviteAllowance, invitable, inviteIdempotencyKey, invitationsUrl, mayRemoveMember, setupUrl } from './rules';

describe('team rules', () => {
  test('invitable unless active here or current elsewhere; a pending invite may be repeated', () => {
    expect(invitable('c', [])).toEqual({ ok: true });
    expect(invitable('c', [{ companyId: 'c', status: 'pending' }])).toEqual({ ok: true });
    expect(invitable('c', [{ companyId: 'c', status: 'inactive' }])).toEqual({ ok: true });
    expect(invitable('c', [{ companyId: 'c', status: 'active' }])).toMatchObject({ code: 'already_member' });
    expect(invitable('c', [{ companyId: 'd', status: 'pending' }])).toMatchObject({ code: 'already_in_company' });
    expect(invitable('c', [{ companyId: 'd', status: 'inactive' }])).toEqual({ ok: true });
  });

  test('the invite key is per company and lower-cased e-mail; the setup link', () => {
    expect(inviteIdempotencyKey('c1', 'A.B@Example.TEST')).toBe('b2b-invite:c1:a.b@example.test');
    expect(setupUrl('https://app.example/x')).toBe('https://app.example/account/setup');
  });
});

describe('invite cap and removal rules', () => {
  test('the cap counts the last 24 hours; Retry-After is when the oldest invite leaves the window', () => {
    const now = new Date('2026-01-02T00:00:00Z');
    expect(inviteAllowance({ count: 2, oldest: new Date('2026-01-01T12:00:00Z') }, 3, now)).toEqual({ ok: true });
    expect(inviteAllowance({ count: 3, oldest: new Date('2026-01-01T12:00:00Z') }, 3, now)).toEqual({ ok: false, retryAfterS: 12 * 3600 });
    expect(invitationsUrl('https://app.example/x')).toBe('https://app.example/b2b/invitations');
  });

  test('a member removes themself; a company_admin anyone; never the last active company_admin', () => {
    const staff = { userId: 's', role: 'staff' as const };
    const admin = { userId: 'a', role: 'company_admin' as const };
    expect(mayRemoveMember(staff, { userId: 's', b2bRole: 'staff', status: 'active' }, 1)).toEqual({ ok: true });
    expect(mayRemoveMember(staff, { userId: 'x', b2bRole: 'staff', status: 'active' }, 1)).toMatchObject({ code: 'b2b_role_forbidden' });
    expect(mayRemoveMember(admin, { userId: 'x', b2bRole: 'finance', status: 'pending' }, 1)).toEqual({ ok: true });
    expect(mayRemoveMember(admin, { userId: 'a', b2bRole: 'company_admin', status: 'active' }, 1)).toMatchObject({ code: 'last_company_admin' });
    expect(mayRemoveMember(admin, { userId: 'a', b2bRole: 'company_admin', status: 'active' }, 2)).toEqual({ ok: true });
  });
});
