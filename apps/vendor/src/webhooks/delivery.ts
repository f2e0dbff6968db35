import { randomUUID } from 'node:crypto';
import { enqueueEvent } from '@pasar/bus';
import { notifyEmailRequested } from '@pasar/contracts';
import { sqlPoolOf } from '@pasar/db';
import { EVENT_SOURCE, type Tx, type VendorDeps } from '../deps';
import type { VendorContext } from '../feature';
import type { Resolve, SendResult } from './http';
import { failedTooLong, outcomeOf, type AttemptOutcome } from './rules';

/** What the delivery worker and the webhook use cases take. */
export type WebhookDeps = Pick<VendorDeps, 'prisma' | 'config' | 'clock'> & { log: VendorContext['log']; resolve: Resolve };

/** A delivery the worker claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  payload: unknown;
  /** This attempt's number (1 = the first). */
  attempt: number;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints (STYLE §2, as the carrier retry worker):
 * pending, next_attempt_at passed, not leased; per endpoint at most WEBHOOK_ENDPOINT_CONCURRENCY
 * leased at once (by every instance together). One statement with `FOR UPDATE SKIP LOCKED` takes
 * a lease (claimed_until: the timeout and a margin) and counts the attempt, committed before any
 * request, so instances take disjoint rows and a crash mid-request only delays the delivery until
 * the lease ends. $5: a random uuid, where this claim starts among the endpoints.
 */
const CLAIM = {
  name: 'vendor-webhook-claim',
  text: `
  UPDATE webhook_delivery d SET claimed_until = $2::timestamptz, attempts = d.attempts + 1, updated_at = $1::timestamptz
  FROM (
    SELECT picked.id, e.url, e.secret, e.previous_secret, e.previous_secret_until
    FROM webhook_endpoint e
    CROSS JOIN LATERAL (
      SELECT p.id FROM webhook_delivery p
      WHERE p.endpoint_id = e.id AND p.status = 'pending' AND p.next_attempt_at <= $1::timestamptz
        AND (p.claimed_until IS NULL OR p.claimed_until < $1::timestamptz)
      ORDER BY p.next_attempt_at
      LIMIT greatest(0, $4::int - (SELECT count(*)::int FROM webhook_delivery l
                                   WHERE l.endpoint_id = e.id AND l.status = 'pending' AND l.claimed_until >= $1::timestamptz))
      FOR UPDATE SKIP LOCKED
    ) picked
    WHERE e.enabled
    -- each claim starts at a random endpoint, so under load no endpoint waits behind the others
    ORDER BY e.id >= $5::uuid DESC, e.id
    LIMIT $3::int
  ) due
  WHERE d.id = due.id
  RETURNING d.id, d.endpoint_id AS "endpointId", d.event_id AS "eventId", d.payload, d.attempts AS attempt,
    due.url, due.secret, due.previous_secret AS "previousSecret", due.previous_secret_until AS "previousSecretUntil"`,
};

/** The lease of one attempt: its timeout and a margin for recording it. */
export const leaseMs = (timeoutMs: number): number => timeoutMs + 5_000;

export async function claimDueDeliveries(deps: Pick<WebhookDeps, 'prisma' | 'config' | 'clock'>, limit: number): Promise<ClaimedDelivery[]> {
  const at = deps.clock?.() ?? new Date();
  const leaseEnd = new Date(at.getTime() + leaseMs(deps.config.WEBHOOK_TIMEOUT_MS));
  const { rows } = await sqlPoolOf(deps.prisma).query<ClaimedDelivery>({
    ...CLAIM,
    values: [at.toISOString(), leaseEnd.toISOString(), limit, deps.config.WEBHOOK_ENDPOINT_CONCURRENCY, randomUUID()],
  });
  return rows;
}

/**
 * Records one attempt and its outcome in one transaction: the attempt row; the delivery delivered,
 * due again, or failed (only while this attempt still holds it); the endpoint's failure state
 * (cleared by a success). A 410, or failures for WEBHOOK_DISABLE_AFTER, disables the endpoint
 * (see disableEndpoint).
 */
export async function recordAttempt(deps: WebhookDeps, delivery: ClaimedDelivery, at: Date, result: SendResult): Promise<AttemptOutcome> {
  const outcome = outcomeOf(result, delivery.attempt, deps.config.WEBHOOK_RETRY_WAITS, at);
  await deps.prisma.$transaction(async (tx) => {
    await tx.webhookAttempt.create({
      data: { deliveryId: delivery.id, attemptedAt: at, httpStatus: result.status, durationMs: result.durationMs, error: result.error, responseBody: result.body },
    });
    const next =
      outcome.kind === 'retry'
        ? { status: 'pending' as const, nextAttemptAt: outcome.at }
        : { status: outcome.kind === 'delivered' ? ('delivered' as const) : ('failed' as const), nextAttemptAt: null };
    await tx.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'pending', attempts: delivery.attempt },
      data: { ...next, claimedUntil: null, updatedAt: new Date() },
    });
    if (outcome.kind === 'delivered') {
      await tx.webhookEndpoint.updateMany({ where: { id: delivery.endpointId, failingSince: { not: null } }, data: { failingSince: null } });
      return;
    }
    await tx.webhookEndpoint.updateMany({ where: { id: delivery.endpointId, failingSince: null }, data: { failingSince: at } });
    const endpoint = await tx.webhookEndpoint.findUnique({ where: { id: delivery.endpointId }, select: { failingSince: true } });
    if (outcome.kind === 'gone') {
      await disableEndpoint(tx, delivery.endpointId, 'gone', 'the receiver answered 410 Gone', at);
    } else if (endpoint?.failingSince && failedTooLong(endpoint.failingSince, at, deps.config.WEBHOOK_DISABLE_AFTER)) {
      await disableEndpoint(tx, delivery.endpointId, 'failing', `every attempt failed since ${endpoint.failingSince.toISOString()}`, at);
    }
  });
  if (outcome.kind !== 'delivered' && outcome.kind !== 'retry') {
    deps.log.info({ deliveryId: delivery.id, endpointId: delivery.endpointId, status: result.status, outcome: outcome.kind }, 'webhook delivery failed');
  }
  return outcome;
}

/**
 * Disables an enabled endpoint (`reason` gone, failing or vendor): its pending deliveries fail
 * (re-enabling does not replay them; a replay does), and unless the vendor did it, the address it
 * was created with is e-mailed (notifier, through the outbox). No-op when already disabled.
 */
export async function disableEndpoint(tx: Tx, endpointId: string, reason: 'gone' | 'failing' | 'vendor', why: string, at: Date): Promise<void> {
  const { count } = await tx.webhookEndpoint.updateMany({
    where: { id: endpointId, enabled: true },
    data: { enabled: false, disabledReason: reason, updatedAt: at },
  });
  if (count === 0) return;
  await tx.webhookDelivery.updateMany({
    where: { endpointId, status: 'pending' },
    data: { status: 'failed', nextAttemptAt: null, claimedUntil: null, updatedAt: at },
  });
  if (reason === 'vendor') return;
  const endpoint = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId }, include: { store: { select: { name: true } } } });
  await enqueueEvent(
    tx,
    notifyEmailRequested,
    {
      messageId: randomUUID(),
      to: endpoint.contactEmail,
      template: 'webhook_endpoint_disabled',
      vars: { storeName: endpoint.store.name, url: endpoint.url, reason: why },
    },
    EVENT_SOURCE,
  );
}
