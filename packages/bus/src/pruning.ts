import type { RawSql } from './dead-letters';

export interface PruneOptions {
  /** Published outbox rows older than this are deleted (unpublished ones never are). */
  outboxRetentionMs: number;
  /** Inbox rows older than this are deleted; keep it longer than any redelivery of a handled event. */
  inboxRetentionMs: number;
  /** Rows per DELETE statement. */
  batchSize?: number;
}

export interface PruneResult {
  outbox: number;
  inbox: number;
}

const DEFAULT_BATCH = 1000;

/**
 * Deletes published outbox rows and inbox rows past their retention, a batch per statement. Safe
 * with any number of instances at once: each batch claims its rows with `FOR UPDATE SKIP LOCKED`,
 * so concurrent pruners take disjoint rows and none waits on another. Dead letters are kept.
 */
export async function pruneBusTables(db: RawSql, options: PruneOptions, now: Date = new Date()): Promise<PruneResult> {
  const batch = options.batchSize ?? DEFAULT_BATCH;
  const outboxBefore = new Date(now.getTime() - options.outboxRetentionMs).toISOString();
  const inboxBefore = new Date(now.getTime() - options.inboxRetentionMs).toISOString();
  const result: PruneResult = { outbox: 0, inbox: 0 };
  for (;;) {
    const n = await db.$executeRawUnsafe(
      `WITH doomed AS (
         SELECT id FROM outbox WHERE published_at IS NOT NULL AND published_at < $1::timestamptz
         ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       DELETE FROM outbox o USING doomed WHERE o.id = doomed.id`,
      outboxBefore,
      batch,
    );
    result.outbox += n;
    if (n < batch) break;
  }
  for (;;) {
    const n = await db.$executeRawUnsafe(
      `WITH doomed AS (
         SELECT consumer, event_id FROM inbox WHERE received_at < $1::timestamptz
         ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       DELETE FROM inbox i USING doomed WHERE i.consumer = doomed.consumer AND i.event_id = doomed.event_id`,
      inboxBefore,
      batch,
    );
    result.inbox += n;
    if (n < batch) break;
  }
  return result;
}
