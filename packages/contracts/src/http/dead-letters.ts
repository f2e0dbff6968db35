import { z } from 'zod';
import type { ApiRoute } from './api-route';

/**
 * Dead letters, per service (operators): outbox events its relay could never publish, and
 * consumed messages its consumers parked. Served by every service under
 * /admin/dead-letters/{service} (the gateway routes each to its service; administrators only).
 */
export const DEAD_LETTER_SERVICES = ['gateway', 'checkout', 'b2b', 'vendor', 'admin'] as const;
export const deadLetterServiceSchema = z.enum(DEAD_LETTER_SERVICES);
export type DeadLetterService = z.infer<typeof deadLetterServiceSchema>;

export const deadLetterKindSchema = z
  .enum(['outbox', 'consumer'])
  .meta({ description: 'outbox: an event the relay could never publish; consumer: a consumed message a consumer could never handle (parked)' });
export type DeadLetterKind = z.infer<typeof deadLetterKindSchema>;

const messageId = z.string().regex(/^(\d{1,19}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i, 'an outbox uuid or a parked message number');

export const deadLetterServiceParam = z.object({ service: deadLetterServiceSchema });
export const deadLetterMessageParam = z.object({ service: deadLetterServiceSchema, kind: deadLetterKindSchema, id: messageId });

/** Dead letters of one kind, event type and (consumer kind) consumer. */
export const deadLetterGroup = z
  .object({
    kind: deadLetterKindSchema,
    type: z.string().meta({ description: 'The event type' }),
    consumer: z.string().nullable().meta({ description: 'The durable consumer that parked them (null for outbox)' }),
    count: z.number().int(),
    firstSeen: z.iso.datetime(),
    lastSeen: z.iso.datetime(),
    lastError: z.string().meta({ description: 'The error of the newest one' }),
  })
  .meta({ id: 'DeadLetterGroup' });
export type DeadLetterGroup = z.infer<typeof deadLetterGroup>;

/** GET /admin/dead-letters/{service}. */
export const deadLetterSummary = z
  .object({ service: deadLetterServiceSchema, total: z.number().int(), groups: z.array(deadLetterGroup) })
  .meta({ id: 'DeadLetterSummary' });
export type DeadLetterSummary = z.infer<typeof deadLetterSummary>;

/** GET /admin/dead-letters/{service}/messages: newest first. */
export const deadLettersQuery = z.object({
  kind: deadLetterKindSchema.optional(),
  type: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const deadLetterMessage = z
  .object({
    kind: deadLetterKindSchema,
    id: z.string().meta({ description: 'The outbox event id (outbox) or the parked message number (consumer)' }),
    type: z.string(),
    consumer: z.string().nullable(),
    eventId: z.string(),
    error: z.string(),
    deliveries: z.number().int().nullable().meta({ description: 'Deliveries before it was parked (consumer only)' }),
    parkedAt: z.iso.datetime(),
    bytes: z.number().int().meta({ description: 'Size of the stored message' }),
  })
  .meta({ id: 'DeadLetterMessage' });
export type DeadLetterMessage = z.infer<typeof deadLetterMessage>;

/** POST /admin/dead-letters/{service}/replay: every dead letter of a type (and consumer). */
export const replayDeadLettersBody = z.object({
  kind: deadLetterKindSchema,
  type: z.string().min(1).max(200),
  consumer: z.string().min(1).max(200).optional().meta({ description: 'consumer kind: only the ones this consumer parked' }),
});

export const replayDeadLettersResult = z.object({ replayed: z.number().int() }).meta({ id: 'DeadLetterReplay' });
export type ReplayDeadLettersResult = z.infer<typeof replayDeadLettersResult>;

export const discardDeadLetterBody = z.object({ reason: z.string().trim().min(3).max(1000) });

/** The audit row a discarded dead letter leaves (its payload is kept in the row, not answered). */
export const deadLetterDiscard = z
  .object({
    id: z.string(),
    kind: deadLetterKindSchema,
    messageId: z.string(),
    type: z.string(),
    consumer: z.string().nullable(),
    eventId: z.string(),
    error: z.string(),
    reason: z.string(),
    discardedBy: z.string().nullable().meta({ description: 'The administrator user id' }),
    discardedAt: z.iso.datetime(),
  })
  .meta({ id: 'DeadLetterDiscard' });
export type DeadLetterDiscard = z.infer<typeof deadLetterDiscard>;

export const deadLetterDiscardsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

const base = '/admin/dead-letters/{service}';
const notFound = { status: 404 as const, description: 'not_found: no such dead letter (already replayed or discarded)' };

export const deadLetterApiRoutes: ApiRoute[] = [
  { method: 'get', path: base, summary: "The service's dead letters by kind, type and consumer: count, first and last seen, newest error", tag: 'Operations', access: 'admin', params: deadLetterServiceParam, success: { status: 200, body: deadLetterSummary } },
  { method: 'get', path: `${base}/messages`, summary: 'Dead letters one by one, newest first (filter by kind and type)', tag: 'Operations', access: 'admin', params: deadLetterServiceParam, query: deadLettersQuery, success: { status: 200, body: z.array(deadLetterMessage) } },
  { method: 'post', path: `${base}/messages/{kind}/{id}/replay`, summary: 'Replay one: an outbox event goes back to the outbox; a parked message is published again (consumers with an inbox handle an event once)', tag: 'Operations', access: 'admin', params: deadLetterMessageParam, success: { status: 200, body: replayDeadLettersResult }, problems: [notFound] },
  { method: 'post', path: `${base}/replay`, summary: 'Replay every dead letter of a type (and consumer)', tag: 'Operations', access: 'admin', params: deadLetterServiceParam, body: replayDeadLettersBody, success: { status: 200, body: replayDeadLettersResult } },
  { method: 'post', path: `${base}/messages/{kind}/{id}/discard`, summary: 'Discard one with a reason; an audit row keeps it (and its payload)', tag: 'Operations', access: 'admin', params: deadLetterMessageParam, body: discardDeadLetterBody, success: { status: 201, body: deadLetterDiscard }, problems: [notFound] },
  { method: 'get', path: `${base}/discards`, summary: 'The audit rows of discarded dead letters, newest first', tag: 'Operations', access: 'admin', params: deadLetterServiceParam, query: deadLetterDiscardsQuery, success: { status: 200, body: z.array(deadLetterDiscard) } },
];
