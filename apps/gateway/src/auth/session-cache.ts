import type { SessionUser } from '@pasar/contracts';

/** A session as the gateway resolved it from its cookie. */
export interface ResolvedSession {
  sessionId: string;
  tokenHash: string;
  user: SessionUser;
  expiresAt: Date;
  /** When the expiry was last extended. */
  lastSeenAt: Date;
}

interface Entry {
  session: ResolvedSession;
  cachedAt: number;
}

/**
 * Token hash → session, per gateway instance, for a few seconds, so most requests skip the
 * database. Bounded (oldest out first). Invalidated on sign-out and password changes, here and on
 * every other instance by a NATS broadcast (SessionRevocations).
 *
 * `epoch` moves on every invalidation: a look-up that started before one must not cache what it
 * read, or a revoked session could come back for a TTL.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** Database look-ups under way, by token hash: concurrent misses of one token share one. */
  private readonly lookups = new Map<string, Promise<unknown>>();
  private currentEpoch = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get epoch(): number {
    return this.currentEpoch;
  }

  get size(): number {
    return this.entries.size;
  }

  get(tokenHash: string): ResolvedSession | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (this.now() - entry.cachedAt >= this.ttlMs) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.session;
  }

  /** Caches unless an invalidation happened since `epochAtLookup` (then it may be stale). */
  set(session: ResolvedSession, epochAtLookup: number): void {
    if (this.ttlMs <= 0 || epochAtLookup !== this.currentEpoch) return;
    this.entries.delete(session.tokenHash);
    this.entries.set(session.tokenHash, { session, cachedAt: this.now() });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /**
   * Runs `load` for a token unless a look-up of it is already under way, whose answer is then
   * shared: when a cached session expires under load, its many requests ask the database once.
   * A look-up that started before an invalidation is not shared after it.
   */
  lookUpOnce<T>(tokenHash: string, load: () => Promise<T>): Promise<T> {
    const running = this.lookups.get(tokenHash);
    if (running) return running as Promise<T>;
    const started = load().finally(() => {
      if (this.lookups.get(tokenHash) === started) this.lookups.delete(tokenHash);
    });
    this.lookups.set(tokenHash, started);
    return started;
  }

  private invalidated(): void {
    this.currentEpoch += 1;
    this.lookups.clear();
  }

  deleteTokens(tokenHashes: string[]): void {
    this.invalidated();
    for (const hash of tokenHashes) this.entries.delete(hash);
  }

  deleteUser(userId: string): void {
    this.invalidated();
    for (const [hash, entry] of this.entries) {
      if (entry.session.user.id === userId) this.entries.delete(hash);
    }
  }

  clear(): void {
    this.invalidated();
    this.entries.clear();
  }
}
