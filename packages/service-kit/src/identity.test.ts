import { IDENTITY_HEADERS, IDENTITY_MAX_AGE_MS, signIdentityHeaders, verifyIdentityHeaders } from './identity';

const secret = 'a-secret-of-at-least-sixteen';
const alice = { userId: '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69', role: 'customer' as const, email: 'alice@example.test' };

describe('signed identity headers', () => {
  test('a signed identity verifies', () => {
    const headers = signIdentityHeaders(secret, alice, 'req-1');
    expect(verifyIdentityHeaders(secret, headers)).toEqual({ ok: true, identity: alice, requestId: 'req-1' });
  });

  test('a signed anonymous request verifies with a null identity', () => {
    expect(verifyIdentityHeaders(secret, signIdentityHeaders(secret, null, 'req-2'))).toEqual({ ok: true, identity: null, requestId: 'req-2' });
  });

  test('missing signature, timestamp or request id → missing', () => {
    const headers = signIdentityHeaders(secret, alice, 'r');
    for (const name of [IDENTITY_HEADERS.sig, IDENTITY_HEADERS.ts, IDENTITY_HEADERS.requestId]) {
      const copy: Record<string, string> = { ...headers };
      delete copy[name];
      expect(verifyIdentityHeaders(secret, copy)).toEqual({ ok: false, reason: 'missing' });
    }
  });

  test.each([
    ['role', IDENTITY_HEADERS.role, 'admin'],
    ['user id', IDENTITY_HEADERS.userId, '00000000-0000-4000-8000-000000000000'],
    ['e-mail', IDENTITY_HEADERS.email, 'mallory@example.test'],
    ['request id', IDENTITY_HEADERS.requestId, 'other'],
    ['signature', IDENTITY_HEADERS.sig, 'ab'.repeat(32)],
    ['signature (short)', IDENTITY_HEADERS.sig, 'abc'],
  ])('a changed %s → forged', (_what, name, value) => {
    const headers = { ...signIdentityHeaders(secret, alice, 'r'), [name]: value };
    expect(verifyIdentityHeaders(secret, headers)).toEqual({ ok: false, reason: 'forged' });
  });

  test('another secret → forged', () => {
    expect(verifyIdentityHeaders(secret, signIdentityHeaders('another-secret-of-16+', alice, 'r'))).toEqual({ ok: false, reason: 'forged' });
  });

  test('older than 60 s (or from the future) → expired', () => {
    const now = Date.now();
    const old = signIdentityHeaders(secret, alice, 'r', now - IDENTITY_MAX_AGE_MS - 1);
    expect(verifyIdentityHeaders(secret, old, now)).toEqual({ ok: false, reason: 'expired' });
    const future = signIdentityHeaders(secret, alice, 'r', now + IDENTITY_MAX_AGE_MS + 1000);
    expect(verifyIdentityHeaders(secret, future, now)).toEqual({ ok: false, reason: 'expired' });
    const fresh = signIdentityHeaders(secret, alice, 'r', now - IDENTITY_MAX_AGE_MS + 1000);
    expect(verifyIdentityHeaders(secret, fresh, now).ok).toBe(true);
  });

  test('a correctly signed unknown role → forged', () => {
    const headers = signIdentityHeaders(secret, { ...alice, role: 'root' as never }, 'r');
    expect(verifyIdentityHeaders(secret, headers)).toEqual({ ok: false, reason: 'forged' });
  });
});
