import { randomUUID } from 'node:crypto';
import type { Bus } from './bus';

/**
 * The raw-SQL part of a Prisma client (every service's client fits). Its connections have
 * `search_path` set to the service schema (@pasar/db createPrisma), so table names are unqualified.
 */
export interface RawSql {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

/** An outbox row the relay could not publish (table `outbox_dead_letter`). */
export interface OutboxDeadLetter {
  id: string;
  type: string;
  error: string;
  parkedAt: Date;
  createdAt: Date;
  /** Size of the event's JSON in bytes (the payload itself can be large, so it is not listed). */
  bytes: number;
}

/** A consumed message that can never succeed (table `parked_message`). */
export interface ParkedMessageRow {
  id: bigint;
  consumer: string;
  eventId: string;
  subject: string;
  error: string;
  deliveries: number;
  parkedAt: Date;
}

export interface DeadLetterPage {
  /** Newest first; at most 200. */
  limit?: number;
  offset?: number;
}

const bounded = (page: DeadLetterPage = {}) => ({
  limit: Math.min(Math.max(Math.trunc(page.limit ?? 50), 1), 200),
  offset: Math.max(Math.trunc(page.offset ?? 0), 0),
});

export async function listOutboxDeadLetters(db: RawSql, page?: DeadLetterPage): Promise<OutboxDeadLetter[]> {
  const { limit, offset } = bounded(page);
  return db.$queryRawUnsafe<OutboxDeadLetter[]>(
    `SELECT id::text AS id, type, error, parked_at AS "parkedAt", created_at AS "createdAt", octet_length(payload::text) AS bytes
       FROM outbox_dead_letter ORDER BY parked_at DESC, seq DESC LIMIT $1 OFFSET $2`,
    limit,
    offset,
  );
}

/**
 * Puts a dead outbox row back into the outbox (after the cause was fixed, e.g. NATS `max_payload`
 * raised): the relay publishes it with its original event id. False when there is no such row.
 */
export async function replayOutboxDeadLetter(db: RawSql, id: string): Promise<boolean> {
  const moved = await db.$executeRawUnsafe(
    `WITH dead AS (DELETE FROM outbox_dead_letter WHERE id = $1::uuid RETURNING id, type, payload, headers, created_at)
     INSERT INTO outbox (id, type, payload, headers, created_at) SELECT id, type, payload, headers, created_at FROM dead`,
    id,
  );
  return moved === 1;
}

export async function listParkedMessages(db: RawSql, page?: DeadLetterPage): Promise<ParkedMessageRow[]> {
  const { limit, offset } = bounded(page);
  return db.$queryRawUnsafe<ParkedMessageRow[]>(
    `SELECT id, consumer, event_id AS "eventId", subject, error, deliveries, parked_at AS "parkedAt"
       FROM parked_message ORDER BY parked_at DESC, id DESC LIMIT $1 OFFSET $2`,
    limit,
    offset,
  );
}

/**
 * Hands a parked message again to the consumer that parked it (after the cause was fixed) and
 * removes it from the dead-letter table. When that consumer runs in this process it handles the
 * message here, through its inbox (so an event already handled is not handled twice); should it
 * fail again, the row stays with the new error. Otherwise the message is published again to its
 * subject, which needs the permission to publish it (development). False when there is no such row.
 */
export async function replayParkedMessage(db: RawSql, bus: Bus, id: bigint | number | string): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<{ consumer: string; subject: string; payload: string }[]>(
    'SELECT consumer, subject, payload FROM parked_message WHERE id = $1::bigint',
    String(id),
  );
  if (rows.length === 0) return false;
  const [row] = rows;
  const replayer = bus.replayers.get(row.consumer);
  if (replayer) {
    try {
      await replayer(row.payload);
    } catch (err) {
      await db.$executeRawUnsafe(
        'UPDATE parked_message SET error = $2, deliveries = deliveries + 1 WHERE id = $1::bigint',
        String(id),
        String(err).slice(0, 2000),
      );
      return true;
    }
  } else {
    // a fresh msgID: the original one may still be inside the stream's duplicate window
    await bus.js.publish(row.subject, row.payload, { msgID: `replay-${randomUUID()}`, headers: bus.headers() });
  }
  await db.$executeRawUnsafe('DELETE FROM parked_message WHERE id = $1::bigint', String(id));
  return true;
}

/** How many dead letters a service holds, for the `pasar_dead_letters` gauge on /metrics. */
export async function countDeadLetters(db: RawSql): Promise<{ outbox: number; consumers: number }> {
  const [row] = await db.$queryRawUnsafe<{ outbox: number; consumers: number }[]>(
    'SELECT (SELECT count(*) FROM outbox_dead_letter)::int AS outbox, (SELECT count(*) FROM parked_message)::int AS consumers',
  );
  return row;
}
