import { randomUUID } from 'node:crypto';
import { enqueueEvent } from '@pasar/bus';
import { notifyEmailRequested } from '@pasar/contracts';
import { Batcher, sqlPoolOf } from '@pasar/db';
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

/** One attempt as the recording statement takes it (a JSON array of these, `n` its place). */
interface AttemptRow {
  n: number;
  delivery_id: string;
  endpoint_id: string;
  attempt: number;
  attempted_at: string;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  status: 'pending' | 'delivered' | 'failed';
  next_attempt_at: string | null;
  ok: boolean;
  gone: boolean;
}

/** An endpoint of a recorded batch that failed since its last success there (or answered 410). */
interface FailingEndpoint {
  endpointId: string;
  gone: boolean;
  failingSince: Date | null;
  lastAttemptAt: Date;
}

/**
 * A batch of attempts recorded by ONE statement (autocommit: one round trip, one commit, no pool
 * connection held between statements): the attempt rows; each delivery delivered, due again or
 * failed, only while that attempt still holds it (pending, its attempt count); each endpoint's
 * failure state, by its attempts in time order: cleared when the last one succeeded, else since
 * the first failure after the last success (or as it was, when none succeeded). Answers the
 * enabled endpoints with a 410 or a failure since their last success, for disabling. (Attempts
 * of one endpoint recorded by concurrent statements take effect in commit order, as concurrent
 * transactions did.)
 */
const RECORD_ATTEMPTS = {
  name: 'vendor-webhook-record-attempts',
  text: `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(n int, delivery_id uuid, endpoint_id uuid, attempt int, attempted_at timestamptz,
      http_status int, duration_ms int, error text, response_body text, status webhook_delivery_status, next_attempt_at timestamptz,
      ok boolean, gone boolean)
  ), logged AS (
    INSERT INTO webhook_attempt (delivery_id, attempted_at, http_status, duration_ms, error, response_body)
    SELECT delivery_id, attempted_at, http_status, duration_ms, error, response_body FROM input ORDER BY n
  ), moved AS (
    UPDATE webhook_delivery d SET status = i.status, next_attempt_at = i.next_attempt_at, claimed_until = NULL, updated_at = now()
    FROM input i
    WHERE d.id = i.delivery_id AND d.status = 'pending' AND d.attempts = i.attempt
  ), per_endpoint AS (
    SELECT endpoint_id, bool_or(gone) AS gone, max(attempted_at) AS last_at, max(attempted_at) FILTER (WHERE ok) AS last_success
    FROM input GROUP BY endpoint_id
  ), verdict AS (
    SELECT p.*, e.enabled, e.failing_since AS old_failing_since,
      (SELECT min(i.attempted_at) FROM input i
       WHERE i.endpoint_id = p.endpoint_id AND NOT i.ok AND i.attempted_at > coalesce(p.last_success, '-infinity')) AS first_failure
    FROM per_endpoint p JOIN webhook_endpoint e ON e.id = p.endpoint_id
    -- the endpoints locked in id order: batches recorded at once never deadlock on them
    ORDER BY e.id
    FOR NO KEY UPDATE OF e
  ), updated AS (
    UPDATE webhook_endpoint e
    SET failing_since = CASE WHEN v.first_failure IS NULL THEN NULL WHEN v.last_success IS NOT NULL THEN v.first_failure
                             ELSE coalesce(e.failing_since, v.first_failure) END
    FROM verdict v
    WHERE e.id = v.endpoint_id
      AND e.failing_since IS DISTINCT FROM (CASE WHEN v.first_failure IS NULL THEN NULL WHEN v.last_success IS NOT NULL THEN v.first_failure
                                                 ELSE coalesce(e.failing_since, v.first_failure) END)
    RETURNING e.id, e.failing_since
  )
  SELECT v.endpoint_id AS "endpointId", v.gone, CASE WHEN u.id IS NOT NULL THEN u.failing_since ELSE v.old_failing_since END AS "failingSince",
    v.last_at AS "lastAttemptAt"
  FROM verdict v LEFT JOIN updated u ON u.id = v.endpoint_id
  WHERE v.enabled AND (v.gone OR v.first_failure IS NOT NULL)`,
};

/** An error the database answered (a SQLSTATE): the statement did not commit, so it may run again. */
const answeredByDatabase = (err: unknown): boolean => typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);

/** The attempt recorder of each client's pool: the attempts that finish while one batch is recorded go in the next. */
const recorders = new WeakMap<object, Batcher<AttemptRow, FailingEndpoint[]>>();

function recorderOf(prisma: WebhookDeps['prisma']): Batcher<AttemptRow, FailingEndpoint[]> {
  let recorder = recorders.get(prisma);
  if (!recorder) {
    recorder = new Batcher<AttemptRow, FailingEndpoint[]>({
      maxBatch: 128,
      maxInFlight: 2,
      // a broken connection may have committed the batch: its attempts are not written twice (their leases end instead)
      retryAlone: answeredByDatabase,
      run: async (rows) => {
        const { rows: failing } = await sqlPoolOf(prisma).query<FailingEndpoint>({ ...RECORD_ATTEMPTS, values: [JSON.stringify(rows.map((row, n) => ({ ...row, n })))] });
        // each endpoint's verdict to the first of its attempts in the batch
        const seen = new Set<string>();
        return rows.map((row) => {
          if (seen.has(row.endpoint_id)) return [];
          seen.add(row.endpoint_id);
          return failing.filter((f) => f.endpointId === row.endpoint_id);
        });
      },
    });
    recorders.set(prisma, recorder);
  }
  return recorder;
}

/**
 * Records one attempt and its outcome, group-committed with the attempts that finish meanwhile
 * (RECORD_ATTEMPTS). A 410, or failures for WEBHOOK_DISABLE_AFTER, then disables the endpoint
 * (see disableEndpoint; a no-op when already disabled, so an attempt recorded but not followed by
 * its disabling, in a crash, is disabled by the endpoint's next failure). Rejects when the attempt
 * could not be recorded: the delivery stays leased and is claimed again when the lease ends.
 */
export async function recordAttempt(deps: WebhookDeps, delivery: ClaimedDelivery, at: Date, result: SendResult): Promise<AttemptOutcome> {
  const outcome = outcomeOf(result, delivery.attempt, deps.config.WEBHOOK_RETRY_WAITS, at);
  const failing = await recorderOf(deps.prisma).submit({
    n: 0,
    delivery_id: delivery.id,
    endpoint_id: delivery.endpointId,
    attempt: delivery.attempt,
    attempted_at: at.toISOString(),
    http_status: result.status,
    duration_ms: result.durationMs,
    error: result.error,
    response_body: result.body,
    status: outcome.kind === 'retry' ? 'pending' : outcome.kind === 'delivered' ? 'delivered' : 'failed',
    next_attempt_at: outcome.kind === 'retry' ? outcome.at.toISOString() : null,
    ok: outcome.kind === 'delivered',
    gone: outcome.kind === 'gone',
  });
  for (const endpoint of failing) {
    if (endpoint.gone) {
      await deps.prisma.$transaction((tx) => disableEndpoint(tx, endpoint.endpointId, 'gone', 'the receiver answered 410 Gone', at));
    } else if (failedTooLong(endpoint.failingSince, new Date(endpoint.lastAttemptAt), deps.config.WEBHOOK_DISABLE_AFTER)) {
      const since = new Date(endpoint.failingSince as Date).toISOString();
      await deps.prisma.$transaction((tx) => disableEndpoint(tx, endpoint.endpointId, 'failing', `every attempt failed since ${since}`, at));
    }
  }
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
