import { eventSubjectsOf, eventTypeOfSubject, type DeadLetterDiscard, type DeadLetterGroup, type DeadLetterKind, type DeadLetterMessage } from '@pasar/contracts';
import type { Bus } from './bus';
import { replayOutboxDeadLetter, replayParkedMessage, type RawSql } from './dead-letters';
import type { Naming } from './naming';

/**
 * What an operator does with a service's dead letters (the admin endpoints every service mounts,
 * service-kit dead-letter-routes.ts): see them grouped or one by one, replay one or all of a type,
 * discard one with a reason kept in `dead_letter_discard`. Parked messages carry no type column:
 * their type is their subject's (without namespace and route key).
 */

const iso = (value: Date | string) => new Date(value).toISOString();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PARKED_ID = /^\d{1,19}$/;

/** True when `id` can name a dead letter of `kind` (an outbox uuid, a parked message number). */
export function isDeadLetterId(kind: DeadLetterKind, id: string): boolean {
  return kind === 'outbox' ? UUID.test(id) : PARKED_ID.test(id);
}

/** The namespaced subjects a parked message of `type` can have. */
const subjectsOf = (naming: Naming, type: string) => eventSubjectsOf(type).map((subject) => naming.subject(subject));

interface GroupRow {
  type: string;
  consumer: string | null;
  count: number;
  first_seen: Date;
  last_seen: Date;
  last_error: string;
}

/** Every dead letter of the service, grouped by kind, event type and (parked) consumer; the largest groups first. */
export async function summarizeDeadLetters(db: RawSql, naming: Naming): Promise<DeadLetterGroup[]> {
  const outbox = await db.$queryRawUnsafe<GroupRow[]>(
    `SELECT type, NULL AS consumer, count(*)::int AS count, min(parked_at) AS first_seen, max(parked_at) AS last_seen,
            (array_agg(error ORDER BY parked_at DESC, seq DESC))[1] AS last_error
       FROM outbox_dead_letter GROUP BY type`,
  );
  const parked = await db.$queryRawUnsafe<GroupRow[]>(
    `SELECT subject AS type, consumer, count(*)::int AS count, min(parked_at) AS first_seen, max(parked_at) AS last_seen,
            (array_agg(error ORDER BY parked_at DESC, id DESC))[1] AS last_error
       FROM parked_message GROUP BY subject, consumer`,
  );
  const groups: DeadLetterGroup[] = outbox.map((row) => groupOf('outbox', row));
  // subjects of one routed type (`<type>.<key>`) make one group
  const byConsumerType = new Map<string, DeadLetterGroup>();
  for (const row of parked) {
    const group = groupOf('consumer', { ...row, type: eventTypeOfSubject(naming.typeOf(row.type)) });
    const key = `${group.consumer} ${group.type}`;
    const known = byConsumerType.get(key);
    if (!known) byConsumerType.set(key, group);
    else {
      known.count += group.count;
      if (group.firstSeen < known.firstSeen) known.firstSeen = group.firstSeen;
      if (group.lastSeen > known.lastSeen) Object.assign(known, { lastSeen: group.lastSeen, lastError: group.lastError });
    }
  }
  groups.push(...byConsumerType.values());
  return groups.sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
}

function groupOf(kind: DeadLetterKind, row: GroupRow): DeadLetterGroup {
  return { kind, type: row.type, consumer: row.consumer, count: row.count, firstSeen: iso(row.first_seen), lastSeen: iso(row.last_seen), lastError: row.last_error };
}

export interface DeadLetterFilter {
  kind?: DeadLetterKind;
  type?: string;
  limit: number;
  offset: number;
}

interface MessageRow {
  kind: DeadLetterKind;
  id: string;
  type_or_subject: string;
  consumer: string | null;
  event_id: string;
  error: string;
  deliveries: number | null;
  parked_at: Date;
  bytes: number;
}

/** Dead letters one by one, newest first, of one kind and type when given. */
export async function listDeadLetters(db: RawSql, naming: Naming, filter: DeadLetterFilter): Promise<DeadLetterMessage[]> {
  const rows = await db.$queryRawUnsafe<MessageRow[]>(
    `SELECT * FROM (
       SELECT 'outbox' AS kind, id::text AS id, type AS type_or_subject, NULL AS consumer, id::text AS event_id, error,
              NULL::int AS deliveries, parked_at, octet_length(payload::text) AS bytes
         FROM outbox_dead_letter WHERE $1::text IS DISTINCT FROM 'consumer' AND ($2::text IS NULL OR type = $2)
       UNION ALL
       SELECT 'consumer' AS kind, id::text AS id, subject AS type_or_subject, consumer, event_id, error,
              deliveries, parked_at, octet_length(payload) AS bytes
         FROM parked_message WHERE $1::text IS DISTINCT FROM 'outbox' AND ($3::text[] IS NULL OR subject = ANY($3::text[]))
     ) dead ORDER BY parked_at DESC, id DESC LIMIT $4 OFFSET $5`,
    filter.kind ?? null,
    filter.type ?? null,
    filter.type ? subjectsOf(naming, filter.type) : null,
    filter.limit,
    filter.offset,
  );
  return rows.map((row) => ({
    kind: row.kind,
    id: row.id,
    type: row.kind === 'outbox' ? row.type_or_subject : eventTypeOfSubject(naming.typeOf(row.type_or_subject)),
    consumer: row.consumer,
    eventId: row.event_id,
    error: row.error,
    deliveries: row.deliveries,
    parkedAt: iso(row.parked_at),
    bytes: Number(row.bytes),
  }));
}

/** Replays one dead letter (dead-letters.ts); false when there is no such row. */
export function replayDeadLetter(db: RawSql, bus: Bus, kind: DeadLetterKind, id: string): Promise<boolean> {
  return kind === 'outbox' ? replayOutboxDeadLetter(db, id) : replayParkedMessage(db, bus, id);
}

/** Rows replayed per round of a replay-all. */
const REPLAY_BATCH = 100;

/**
 * Replays every dead letter of `type` (of one consumer when given, parked messages only): outbox
 * rows go back to the outbox in one statement (the relay publishes them in their first order);
 * parked messages are published again one by one, oldest first. Answers how many.
 */
export async function replayDeadLettersOfType(
  db: RawSql,
  bus: Bus,
  selection: { kind: DeadLetterKind; type: string; consumer?: string },
): Promise<number> {
  if (selection.kind === 'outbox') {
    return db.$executeRawUnsafe(
      `WITH dead AS (DELETE FROM outbox_dead_letter WHERE type = $1 RETURNING id, type, payload, headers, created_at, seq)
       INSERT INTO outbox (id, type, payload, headers, created_at) SELECT id, type, payload, headers, created_at FROM dead ORDER BY seq`,
      selection.type,
    );
  }
  let replayed = 0;
  let after = '0';
  for (;;) {
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id::text AS id FROM parked_message
        WHERE subject = ANY($1::text[]) AND ($2::text IS NULL OR consumer = $2) AND id > $3::bigint
        ORDER BY id LIMIT $4`,
      subjectsOf(bus.naming, selection.type),
      selection.consumer ?? null,
      after,
      REPLAY_BATCH,
    );
    for (const row of rows) if (await replayParkedMessage(db, bus, row.id)) replayed += 1;
    if (rows.length < REPLAY_BATCH) return replayed;
    after = rows[rows.length - 1].id;
  }
}

interface DiscardRow {
  id: string;
  kind: DeadLetterKind;
  message_id: string;
  type: string;
  consumer: string | null;
  event_id: string;
  error: string;
  reason: string;
  discarded_by: string | null;
  discarded_at: Date;
}

const DISCARD_COLUMNS = 'id::text AS id, kind, message_id, type, consumer, event_id, error, reason, discarded_by, discarded_at';

const toDiscard = (row: DiscardRow): DeadLetterDiscard => ({
  id: row.id,
  kind: row.kind,
  messageId: row.message_id,
  type: row.type,
  consumer: row.consumer,
  eventId: row.event_id,
  error: row.error,
  reason: row.reason,
  discardedBy: row.discarded_by,
  discardedAt: iso(row.discarded_at),
});

/**
 * Removes one dead letter and keeps it, with the reason and who, in `dead_letter_discard` (one
 * statement: both or neither). Null when there is no such row.
 */
export async function discardDeadLetter(
  db: RawSql,
  naming: Naming,
  target: { kind: DeadLetterKind; id: string; reason: string; by: string | null },
): Promise<DeadLetterDiscard | null> {
  const values = [target.id, target.reason, target.by];
  const insert = `INSERT INTO dead_letter_discard (kind, message_id, type, consumer, event_id, error, payload, reason, discarded_by)`;
  if (target.kind === 'outbox') {
    const rows = await db.$queryRawUnsafe<DiscardRow[]>(
      `WITH gone AS (DELETE FROM outbox_dead_letter WHERE id = $1::uuid RETURNING id::text AS id, type, error, payload::text AS payload)
       ${insert} SELECT 'outbox', id, type, NULL, id, error, payload, $2, $3 FROM gone RETURNING ${DISCARD_COLUMNS}`,
      ...values,
    );
    return rows.length ? toDiscard(rows[0]) : null;
  }
  // a parked message's type is its subject's
  const [parked] = await db.$queryRawUnsafe<{ subject: string }[]>('SELECT subject FROM parked_message WHERE id = $1::bigint', target.id);
  if (!parked) return null;
  const rows = await db.$queryRawUnsafe<DiscardRow[]>(
    `WITH gone AS (DELETE FROM parked_message WHERE id = $1::bigint RETURNING id::text AS id, consumer, event_id, error, payload)
     ${insert} SELECT 'consumer', id, $4, consumer, event_id, error, payload, $2, $3 FROM gone RETURNING ${DISCARD_COLUMNS}`,
    ...values,
    eventTypeOfSubject(naming.typeOf(parked.subject)),
  );
  return rows.length ? toDiscard(rows[0]) : null;
}

/** The audit rows of discarded dead letters, newest first. */
export async function listDeadLetterDiscards(db: RawSql, page: { limit: number; offset: number }): Promise<DeadLetterDiscard[]> {
  const rows = await db.$queryRawUnsafe<DiscardRow[]>(
    `SELECT ${DISCARD_COLUMNS} FROM dead_letter_discard ORDER BY discarded_at DESC, id DESC LIMIT $1 OFFSET $2`,
    page.limit,
    page.offset,
  );
  return rows.map(toDiscard);
}
