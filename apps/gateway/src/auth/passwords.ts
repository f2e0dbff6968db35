import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** argon2id (the library's default algorithm) with its default, OWASP-level cost. */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

let decoy: Promise<string> | undefined;

/** Computes the decoy hash ahead of the first sign-in with an unknown e-mail (else that one is slower). */
export async function warmPasswordDecoy(): Promise<void> {
  decoy ??= hash(randomBytes(16).toString('hex'));
  await decoy;
}

/**
 * Checks a password against a stored hash. With no stored hash (unknown e-mail) it still spends
 * the time of one verification against a decoy, so the answer time does not reveal which
 * e-mails have accounts.
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  decoy ??= hash(randomBytes(16).toString('hex'));
  const target = storedHash ?? (await decoy);
  try {
    const ok = await verify(target, password);
    return ok && storedHash !== null;
  } catch {
    return false;
  }
}
