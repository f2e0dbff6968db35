import { addressRefusal, failedTooLong, isForbiddenAddress, newSecret, outcomeOf, retryAfterMs, signingSecrets, storedBody, urlRefusal, webhookIdOf } from './rules';

const at = new Date('2026-11-27T12:00:00.000Z');
const waits = [5_000, 300_000];
const after = (ms: number) => new Date(at.getTime() + ms);

describe('outcomeOf', () => {
  test.each([200, 201, 204, 299])('%i is delivered', (status) => {
    expect(outcomeOf({ status }, 1, waits, at)).toEqual({ kind: 'delivered' });
  });

  test('410 is gone (the endpoint is disabled), whatever the attempt', () => {
    expect(outcomeOf({ status: 410 }, 1, waits, at)).toEqual({ kind: 'gone' });
  });

  test.each([500, 502, 503, 504, 408, 429, null])('%s is retried on the schedule, each attempt its own wait', (status) => {
    expect(outcomeOf({ status }, 1, waits, at)).toEqual({ kind: 'retry', at: after(5_000) });
    expect(outcomeOf({ status }, 2, waits, at)).toEqual({ kind: 'retry', at: after(300_000) });
  });

  test('after the last wait a retryable answer is failed', () => {
    expect(outcomeOf({ status: 500 }, 3, waits, at)).toEqual({ kind: 'failed' });
    expect(outcomeOf({ status: null }, 3, waits, at)).toEqual({ kind: 'failed' });
  });

  test.each([400, 401, 403, 404, 409, 422, 301, 302, 307, 100])('%i fails at once', (status) => {
    expect(outcomeOf({ status }, 1, waits, at)).toEqual({ kind: 'failed' });
  });

  test('429 and 503 honour a longer Retry-After; a shorter one keeps the schedule; other statuses ignore it', () => {
    expect(outcomeOf({ status: 429, retryAfter: '120' }, 1, waits, at)).toEqual({ kind: 'retry', at: after(120_000) });
    expect(outcomeOf({ status: 503, retryAfter: '1' }, 1, waits, at)).toEqual({ kind: 'retry', at: after(5_000) });
    expect(outcomeOf({ status: 500, retryAfter: '120' }, 1, waits, at)).toEqual({ kind: 'retry', at: after(5_000) });
  });
});

describe('retryAfterMs', () => {
  test('seconds or an HTTP date, cut to 24 h; nothing readable is null', () => {
    expect(retryAfterMs('30', at)).toBe(30_000);
    expect(retryAfterMs(new Date(at.getTime() + 90_000).toUTCString(), at)).toBe(90_000);
    expect(retryAfterMs('999999', at)).toBe(24 * 3_600_000);
    expect(retryAfterMs(new Date(at.getTime() - 90_000).toUTCString(), at)).toBe(0);
    expect(retryAfterMs('soon', at)).toBeNull();
    expect(retryAfterMs(null, at)).toBeNull();
  });
});

test('failedTooLong: from the first failure, at the limit and after', () => {
  const day = 86_400_000;
  expect(failedTooLong(null, at, 3 * day)).toBe(false);
  expect(failedTooLong(new Date(at.getTime() - 3 * day + 1), at, 3 * day)).toBe(false);
  expect(failedTooLong(new Date(at.getTime() - 3 * day), at, 3 * day)).toBe(true);
});

test('signingSecrets: the previous secret signs too until its overlap ends', () => {
  const endpoint = { secret: 'new', previousSecret: 'old', previousSecretUntil: after(1000) };
  expect(signingSecrets(endpoint, at)).toEqual(['new', 'old']);
  expect(signingSecrets(endpoint, after(1000))).toEqual(['new']);
  expect(signingSecrets({ secret: 'new', previousSecret: null, previousSecretUntil: null }, at)).toEqual(['new']);
});

test('newSecret is whsec_ and 32 random bytes; webhookIdOf is stable', () => {
  const secret = newSecret();
  expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  expect(secret).toMatch(/^whsec_/);
  expect(newSecret()).not.toBe(secret);
  expect(webhookIdOf('0b7c2c2e-3f7d-4c55-9a7a-3b8f1c2d4e5f')).toBe('msg_0b7c2c2e3f7d4c559a7a3b8f1c2d4e5f');
});

test('storedBody keeps the first 1 KiB, none when empty', () => {
  expect(storedBody(Buffer.alloc(0))).toBeNull();
  expect(storedBody(Buffer.from('a'.repeat(3000)))).toHaveLength(1024);
  // a multi-byte character cut at the limit is dropped, not half-kept
  expect(storedBody(Buffer.from(`${'a'.repeat(1023)}é`))).toBe('a'.repeat(1023));
});

describe('URL safety', () => {
  test.each([
    '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.1', '192.168.1.1', '127.0.0.1', '127.8.8.8', '169.254.169.254', '169.254.0.1',
    '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe', '64:ff9b::a00:1', 'not-an-ip',
  ])('%s is forbidden in production', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is allowed', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  test('addressRefusal: every address must pass in production; none resolved is refused everywhere', () => {
    expect(addressRefusal(['93.184.216.34'], 'production')).toBeNull();
    expect(addressRefusal(['93.184.216.34', '10.0.0.1'], 'production')).toMatch(/10\.0\.0\.1/);
    expect(addressRefusal(['10.0.0.1'], 'local')).toBeNull();
    expect(addressRefusal([], 'local')).toMatch(/does not resolve/);
  });

  test('urlRefusal: https everywhere; http to loopback in development and test only; no credentials', () => {
    expect(urlRefusal(new URL('https://hooks.example.com/in'), 'production')).toBeNull();
    expect(urlRefusal(new URL('http://hooks.example.com/in'), 'production')).toMatch(/https/);
    expect(urlRefusal(new URL('http://127.0.0.1:9999/'), 'production')).toMatch(/https/);
    expect(urlRefusal(new URL('http://127.0.0.1:9999/'), 'local')).toBeNull();
    expect(urlRefusal(new URL('http://localhost:9999/'), 'local')).toBeNull();
    expect(urlRefusal(new URL('http://[::1]:9999/'), 'local')).toBeNull();
    expect(urlRefusal(new URL('http://hooks.example.com/'), 'local')).toMatch(/loopback/);
    expect(urlRefusal(new URL('https://user:pw@hooks.example.com/'), 'production')).toMatch(/credentials/);
  });
});
