import { EMPTY_BODY_SHA256, IDENTITY_HEADERS, IDENTITY_MAX_AGE_MS, bodyMatchesSignature, bodySha256, signIdentityHeaders, verifyIdentityHeaders } from './identity';

const secret = 'a-secret-of-at-least-sixteen';
const alice = { userId: '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69', role: 'customer' as const, email: 'alice@example.test' };
const target = { method: 'GET', path: '/api/v1/account/addresses?page=1', bodySha256: EMPTY_BODY_SHA256 };

describe('signed identity headers', () => {
  test('a signed identity verifies for the request it was signed for', () => {
    const headers = signIdentityHeaders(secret, target, alice, 'req-1');
    expect(verifyIdentityHeaders(secret, target, headers)).toEqual({ ok: true, identity: alice, requestId: 'req-1', bodySha256: EMPTY_BODY_SHA256 });
  });

  test('a signed anonymous request verifies with a null identity', () => {
    expect(verifyIdentityHeaders(secret, target, signIdentityHeaders(secret, target, null, 'req-2'))).toEqual({ ok: true, identity: null, requestId: 'req-2', bodySha256: EMPTY_BODY_SHA256 });
  });

  test('missing signature, timestamp, request id or body digest → missing', () => {
    const headers = signIdentityHeaders(secret, target, alice, 'r');
    for (const name of [IDENTITY_HEADERS.sig, IDENTITY_HEADERS.ts, IDENTITY_HEADERS.requestId, IDENTITY_HEADERS.bodySha256]) {
      const copy: Record<string, string> = { ...headers };
      delete copy[name];
      expect(verifyIdentityHeaders(secret, target, copy)).toEqual({ ok: false, reason: 'missing' });
    }
  });

  test.each([
    ['role', IDENTITY_HEADERS.role, 'admin'],
    ['user id', IDENTITY_HEADERS.userId, '00000000-0000-4000-8000-000000000000'],
    ['e-mail', IDENTITY_HEADERS.email, 'mallory@example.test'],
    ['request id', IDENTITY_HEADERS.requestId, 'other'],
    ['body digest', IDENTITY_HEADERS.bodySha256, bodySha256('{"another":"body"}')],
    ['signature', IDENTITY_HEADERS.sig, 'ab'.repeat(32)],
    ['signature (short)', IDENTITY_HEADERS.sig, 'abc'],
  ])('a changed %s → forged', (_what, name, value) => {
    const headers = { ...signIdentityHeaders(secret, target, alice, 'r'), [name]: value };
    expect(verifyIdentityHeaders(secret, target, headers)).toEqual({ ok: false, reason: 'forged' });
  });

  test.each([
    ['another method', { ...target, method: 'DELETE' }],
    ['another path', { ...target, path: '/api/v1/account/profile' }],
    ['another query string', { ...target, path: '/api/v1/account/addresses?page=2' }],
    ['no query string', { ...target, path: '/api/v1/account/addresses' }],
  ])('headers replayed with %s → forged', (_what, replayed) => {
    const headers = signIdentityHeaders(secret, target, alice, 'r');
    expect(verifyIdentityHeaders(secret, replayed, headers)).toEqual({ ok: false, reason: 'forged' });
  });

  test('the method is compared case-insensitively (node upper-cases it)', () => {
    const headers = signIdentityHeaders(secret, { ...target, method: 'get' }, alice, 'r');
    expect(verifyIdentityHeaders(secret, target, headers).ok).toBe(true);
  });

  test('another secret → forged', () => {
    expect(verifyIdentityHeaders(secret, target, signIdentityHeaders('another-secret-of-16+', target, alice, 'r'))).toEqual({ ok: false, reason: 'forged' });
  });

  test('older than 60 s (or from the future) → expired', () => {
    const now = Date.now();
    const old = signIdentityHeaders(secret, target, alice, 'r', now - IDENTITY_MAX_AGE_MS - 1);
    expect(verifyIdentityHeaders(secret, target, old, now)).toEqual({ ok: false, reason: 'expired' });
    const future = signIdentityHeaders(secret, target, alice, 'r', now + IDENTITY_MAX_AGE_MS + 1000);
    expect(verifyIdentityHeaders(secret, target, future, now)).toEqual({ ok: false, reason: 'expired' });
    const fresh = signIdentityHeaders(secret, target, alice, 'r', now - IDENTITY_MAX_AGE_MS + 1000);
    expect(verifyIdentityHeaders(secret, target, fresh, now).ok).toBe(true);
  });

  test('a correctly signed unknown role → forged', () => {
    const headers = signIdentityHeaders(secret, target, { ...alice, role: 'root' as never }, 'r');
    expect(verifyIdentityHeaders(secret, target, headers)).toEqual({ ok: false, reason: 'forged' });
  });

  test('the signed digest is what the body read must match: the same bytes only, none only for a digest of none', () => {
    const body = Buffer.from('{"name":"signed"}');
    const headers = signIdentityHeaders(secret, { ...target, method: 'POST', bodySha256: bodySha256(body) }, alice, 'r');
    const check = verifyIdentityHeaders(secret, { ...target, method: 'POST' }, headers);
    if (!check.ok) throw new Error('the signature should verify');
    expect(bodyMatchesSignature(check.bodySha256, body)).toBe(true);
    expect(bodyMatchesSignature(check.bodySha256, Buffer.from('{"name":"other"}'))).toBe(false);
    expect(bodyMatchesSignature(check.bodySha256, new Uint8Array(0))).toBe(false);
    expect(bodyMatchesSignature(EMPTY_BODY_SHA256, new Uint8Array(0))).toBe(true);
    expect(bodyMatchesSignature('not hex', body)).toBe(false);
  });
});
