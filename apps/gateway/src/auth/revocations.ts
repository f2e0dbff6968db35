import type { Subscription } from '@nats-io/transport-node';
import type { Bus } from '@pasar/bus';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { SessionCache } from './session-cache';

/** Core NATS subject (no stream): every gateway instance hears every revocation. */
export const SESSION_REVOKED = 'gateway.session.revoked';

const revocationSchema = z.object({
  tokenHashes: z.array(z.string()).optional(),
  userId: z.uuid().optional(),
});
export type Revocation = z.infer<typeof revocationSchema>;

const FLUSH_TIMEOUT_MS = 1000;

/**
 * Keeps the session caches of all gateway instances honest: a revocation is applied here at
 * once and broadcast to the others, which drop the same entries.
 */
export class SessionRevocations {
  private readonly subject: string;
  private readonly listeners: ((revocation: Revocation) => void)[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly cache: SessionCache,
    private readonly log: Logger,
  ) {
    this.subject = bus.naming.subject(SESSION_REVOKED);
  }

  /** Listens for the other instances' revocations (no queue group: everyone gets each one). */
  listen(): Subscription {
    return this.bus.nc.subscribe(this.subject, {
      callback: (err, msg) => {
        if (err) return this.log.warn({ err }, 'session revocation subscription error');
        const parsed = revocationSchema.safeParse(safeJson(msg.string()));
        if (parsed.success) this.apply(parsed.data);
        else this.log.warn({ subject: msg.subject }, 'ignored a malformed session revocation');
      },
    });
  }

  /**
   * Applies locally, publishes, and waits (briefly) until NATS has it, so the other instances
   * drop their entries before the caller answers. With NATS down the others catch up within the
   * cache TTL.
   */
  async broadcast(revocation: Revocation): Promise<void> {
    this.apply(revocation);
    try {
      this.bus.nc.publish(this.subject, JSON.stringify(revocation));
      await Promise.race([this.bus.nc.flush(), new Promise((resolve) => setTimeout(resolve, FLUSH_TIMEOUT_MS).unref())]);
    } catch (err) {
      this.log.warn({ err }, 'could not broadcast a session revocation; other instances expire it within the cache TTL');
    }
  }

  /** Also told of every revocation, local or from another instance (live streams close theirs). */
  onRevoked(listener: (revocation: Revocation) => void): void {
    this.listeners.push(listener);
  }

  private apply(revocation: Revocation): void {
    if (revocation.tokenHashes?.length) this.cache.deleteTokens(revocation.tokenHashes);
    if (revocation.userId) this.cache.deleteUser(revocation.userId);
    for (const listener of this.listeners) listener(revocation);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
