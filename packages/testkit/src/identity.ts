import { randomUUID } from 'node:crypto';
import type { Role } from '@pasar/contracts';
import { signIdentityHeaders } from '@pasar/service-kit';

export const TEST_IDENTITY_SECRET = 'test-identity-secret-0123456789abcdef';

/** Headers as the gateway would send them for this caller (null = anonymous). */
export function signedHeaders(
  identity: { userId?: string; role: Role; email?: string } | null,
  secret = TEST_IDENTITY_SECRET,
): Record<string, string> {
  return signIdentityHeaders(
    secret,
    identity ? { userId: identity.userId ?? randomUUID(), role: identity.role, email: identity.email ?? 'user@example.test' } : null,
    randomUUID(),
  );
}
