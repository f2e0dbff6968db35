import { invitable, inviteIdempotencyKey, setupUrl } from './rules';

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
