import { z } from 'zod';
import {
  GENERATED_PASSWORD_LENGTH,
  PASSWORD_ALPHABET,
  accountKeyOf,
  approvalEmailIdOf,
  credentialsResendable,
  derivedUuid,
  generatePassword,
  reviewable,
  signInUrlOf,
} from './rules';

describe('reviewable: approve and reject from pending only', () => {
  test.each([
    ['pending', true],
    ['approved', false],
    ['rejected', false],
  ] as const)('%s → %s', (status, ok) => {
    const result = reviewable(status);
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result).toEqual({ ok: false, code: 'not_pending', detail: `the application is ${status}` });
  });
});

describe('credentialsResendable: approved only', () => {
  test.each([
    ['pending', false],
    ['approved', true],
    ['rejected', false],
  ] as const)('%s → %s', (status, ok) => {
    const result = credentialsResendable(status);
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.code).toBe('not_approved');
  });
});

describe('generatePassword', () => {
  test('is 16 characters of the readable alphabet', () => {
    for (let i = 0; i < 50; i += 1) {
      const password = generatePassword();
      expect(password).toHaveLength(GENERATED_PASSWORD_LENGTH);
      expect([...password].every((c) => PASSWORD_ALPHABET.includes(c))).toBe(true);
    }
  });

  test('draws every character from the random source (no fixed part)', () => {
    expect(generatePassword(() => 0)).toBe('A'.repeat(16));
    expect(generatePassword((size) => size - 1)).toBe('9'.repeat(16));
    expect(new Set(Array.from({ length: 20 }, () => generatePassword())).size).toBe(20);
  });
});

describe('derived ids', () => {
  test('the approval e-mail id is a stable UUID per application, different between applications', () => {
    const a = approvalEmailIdOf('00000000-0000-4000-8000-000000000001');
    expect(z.uuid().safeParse(a).success).toBe(true);
    expect(approvalEmailIdOf('00000000-0000-4000-8000-000000000001')).toBe(a);
    expect(approvalEmailIdOf('00000000-0000-4000-8000-000000000002')).not.toBe(a);
    expect(z.uuid().safeParse(derivedUuid('anything')).success).toBe(true);
  });

  test('the account key names the application', () => {
    expect(accountKeyOf('abc')).toBe('vendor-application:abc');
  });

  test('the sign-in link ends in /sign-in whatever the trailing slashes', () => {
    expect(signInUrlOf('https://shop.example/')).toBe('https://shop.example/sign-in');
    expect(signInUrlOf('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/sign-in');
  });
});
