import type { GatewayConfig } from '../config';
import type { GatewayPrisma, GatewayTx } from '../db';
import { toSessionUser } from '../users/users';
import type { SessionRevocations } from './revocations';
import { newSessionToken, sessionExpiry, shouldExtendSession } from './rules';
import type { ResolvedSession, SessionCache } from './session-cache';

/** What the session use cases need. */
export interface SessionDeps {
  prisma: GatewayPrisma;
  cache: SessionCache;
  revocations: SessionRevocations;
  config: Pick<GatewayConfig, 'SESSION_TTL_DAYS'>;
  clock: () => Date;
}

export interface StartedSession {
  token: string;
  /** When the session was opened: the cookie's Max-Age counts from here. */
  issuedAt: Date;
  expiresAt: Date;
}

/** Opens a session for the user (inside the caller's transaction); the token goes into the cookie. */
export async function startSession(tx: GatewayTx, userId: string, now: Date, ttlDays: number): Promise<StartedSession> {
  const { token, tokenHash } = newSessionToken();
  const expiresAt = sessionExpiry(now, ttlDays);
  await tx.session.create({ data: { tokenHash, userId, createdAt: now, expiresAt, lastSeenAt: now } });
  return { token, issuedAt: now, expiresAt };
}

/**
 * The session behind a token hash, from the cache or the database; null when unknown or expired.
 * A session in use slides: `extended` says its expiry moved (the cookie must be re-sent).
 */
export async function resolveSession(
  deps: SessionDeps,
  tokenHash: string,
): Promise<{ session: ResolvedSession; extended: boolean } | null> {
  const now = deps.clock();
  const cached = deps.cache.get(tokenHash);
  if (cached && cached.expiresAt > now && !shouldExtendSession(cached.lastSeenAt, now)) {
    return { session: cached, extended: false };
  }
  return deps.cache.lookUpOnce(tokenHash, () => lookUpSession(deps, tokenHash, now));
}

/** resolveSession's database part: the row, its sliding expiry, then the cache. */
async function lookUpSession(deps: SessionDeps, tokenHash: string, now: Date): Promise<{ session: ResolvedSession; extended: boolean } | null> {
  const epoch = deps.cache.epoch;
  const row = await deps.prisma.session.findUnique({ where: { tokenHash }, include: { user: true } });
  if (!row || row.expiresAt <= now) return null;
  let session: ResolvedSession = {
    sessionId: row.id,
    tokenHash,
    user: toSessionUser(row.user),
    expiresAt: row.expiresAt,
    lastSeenAt: row.lastSeenAt,
  };
  let extended = false;
  if (shouldExtendSession(row.lastSeenAt, now)) {
    const expiresAt = sessionExpiry(now, deps.config.SESSION_TTL_DAYS);
    const { count } = await deps.prisma.session.updateMany({ where: { id: row.id }, data: { expiresAt, lastSeenAt: now } });
    if (count === 0) return null; // signed out meanwhile
    session = { ...session, expiresAt, lastSeenAt: now };
    extended = true;
  }
  deps.cache.set(session, epoch);
  return { session, extended };
}

/** Sign-out: the session is gone here and, through the broadcast, on every other instance. */
export async function endSession(deps: SessionDeps, tokenHash: string): Promise<void> {
  await deps.prisma.session.deleteMany({ where: { tokenHash } });
  await deps.revocations.broadcast({ tokenHashes: [tokenHash] });
}

/**
 * Ends every session of a user (password reset), or every one but `keepTokenHash` (password
 * change keeps the caller signed in). Runs in the caller's transaction; call
 * `broadcastUserRevocation` after it commits.
 */
export async function deleteUserSessions(tx: GatewayTx, userId: string, keepTokenHash?: string): Promise<number> {
  const { count } = await tx.session.deleteMany({
    where: { userId, ...(keepTokenHash ? { NOT: { tokenHash: keepTokenHash } } : {}) },
  });
  return count;
}

/** Drops a user's cached sessions on every instance (after revocation, or when the user changed). */
export function broadcastUserRevocation(deps: Pick<SessionDeps, 'revocations'>, userId: string): Promise<void> {
  return deps.revocations.broadcast({ userId });
}

/** Removes sessions that expired (a periodic sweep keeps the table small). */
export async function deleteExpiredSessions(prisma: GatewayPrisma, now: Date): Promise<number> {
  const { count } = await prisma.session.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}
