import { enqueueEvent } from '@pasar/bus';
import { identityUserUpserted, type SessionUser, type UserSummary } from '@pasar/contracts';
import type { GatewayTx } from '../db';
import type { User } from '../generated/prisma/client';

/** The `source` of every event the gateway publishes. */
export const EVENT_SOURCE = 'gateway';

/** E-mail addresses are stored lower-case (users.email is unique). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The user as sign-in, sign-up and GET /auth/session answer it. */
export function toSessionUser(user: User): SessionUser {
  return {
    id: user.id,
    email: user.email,
    fullName: user.fullName,
    role: user.role,
    mustChangePassword: user.mustChangePassword,
  };
}

/** The user as the identity rpc responders answer it. */
export function toUserSummary(user: User): UserSummary {
  return { ...toSessionUser(user), phone: user.phone };
}

/** `identity.user.upserted` through the outbox, in the caller's transaction. */
export async function enqueueUserUpserted(tx: GatewayTx, user: User, requestId?: string): Promise<void> {
  await enqueueEvent(
    tx,
    identityUserUpserted,
    {
      userId: user.id,
      email: user.email,
      fullName: user.fullName,
      phone: user.phone,
      role: user.role,
      updatedAt: user.updatedAt.toISOString(),
    },
    { source: EVENT_SOURCE, requestId },
  );
}
