import { randomUUID } from 'node:crypto';
import { enqueueEvent } from '@pasar/bus';
import { notifyEmailRequested, type SessionUser, type signInBody, type signUpBody } from '@pasar/contracts';
import { isUniqueViolation } from '@pasar/db';
import { conflict } from '@pasar/service-kit';
import type { z } from 'zod';
import type { GatewayConfig } from '../config';
import { EVENT_SOURCE, enqueueUserUpserted, normaliseEmail, toSessionUser } from '../users/users';
import { hashPassword, verifyPassword } from './passwords';
import { hashSessionToken } from './rules';
import { endSession, startSession, type SessionDeps, type StartedSession } from './sessions';
import { deviceToken, isDeviceOf } from './device-cookie';
import type { SignInLimiter } from './sign-in-limiter';

export interface AuthDeps extends SessionDeps {
  config: SessionDeps['config'] & Pick<GatewayConfig, 'IDENTITY_SECRET'>;
  limiter: SignInLimiter;
}

export interface SignedIn extends StartedSession {
  user: SessionUser;
}

/**
 * Creates a customer and signs them in. The welcome e-mail and the user replica event go out
 * through the outbox in the same transaction. A taken e-mail is a 409 `email_taken`.
 */
export async function signUp(deps: SessionDeps, input: z.infer<typeof signUpBody>, requestId?: string): Promise<SignedIn> {
  const email = normaliseEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const now = deps.clock();
  try {
    return await deps.prisma.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { id: randomUUID(), email, passwordHash, fullName: input.fullName, phone: input.phone ?? null, role: 'customer' },
      });
      await enqueueUserUpserted(tx, user, requestId);
      await enqueueEvent(
        tx,
        notifyEmailRequested,
        { messageId: randomUUID(), to: user.email, template: 'welcome', vars: { fullName: user.fullName } },
        { source: EVENT_SOURCE, requestId },
      );
      const session = await startSession(tx, user.id, now, deps.config.SESSION_TTL_DAYS);
      return { ...session, user: toSessionUser(user) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('email_taken', 'an account with this e-mail already exists');
    throw err;
  }
}

export type SignInResult =
  | ({ ok: true; deviceToken: string } & SignedIn)
  | { ok: false; reason: 'invalid_credentials' }
  | { ok: false; reason: 'rate_limited'; retryAfterS: number };

/**
 * Checks the credentials and opens a session. An unknown e-mail and a wrong password get the same
 * answer after the same work. Attempts are limited per IP and per e-mail from one IP, and a
 * guessed e-mail backs off (SignInLimiter) except on a device that signed in as it before (its
 * `device` cookie, renewed by every success): others' failures cannot stop the owner.
 */
export async function signIn(deps: AuthDeps, input: z.infer<typeof signInBody>, ip: string, device?: string): Promise<SignInResult> {
  const email = normaliseEmail(input.email);
  const now = deps.clock();
  const knownDevice = isDeviceOf(deps.config.IDENTITY_SECRET, device, email, now);
  const attempt = await deps.limiter.attempt(ip, email, { knownDevice });
  if (!attempt.ok) return { ok: false, reason: 'rate_limited', retryAfterS: attempt.retryAfterS };
  const user = await deps.prisma.user.findUnique({ where: { email } });
  const valid = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !valid) {
    await deps.limiter.failed(ip, email);
    return { ok: false, reason: 'invalid_credentials' };
  }
  await deps.limiter.succeeded(ip, email);
  const session = await deps.prisma.$transaction((tx) => startSession(tx, user.id, now, deps.config.SESSION_TTL_DAYS));
  return { ok: true, ...session, user: toSessionUser(user), deviceToken: deviceToken(deps.config.IDENTITY_SECRET, email, now) };
}

/** Ends the session of this cookie value, if there is one. */
export async function signOut(deps: SessionDeps, token: string | undefined): Promise<void> {
  if (token) await endSession(deps, hashSessionToken(token));
}
