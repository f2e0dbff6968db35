import { connectionStringWithoutSchema, schemaFromUrl, sqlPoolOf } from '@pasar/db';
import { Client } from 'pg';
import { now } from '../deps';
import { claimDueDeliveries, recordAttempt, type ClaimedDelivery, type WebhookDeps } from './delivery';
import { postWebhook } from './http';
import { webhookMetrics } from './metrics';
import { signatureHeader } from './signing';
import { signingSecrets, urlPolicyOf, webhookIdOf } from './rules';

/** The channel the shipment triggers NOTIFY (one per schema: test schemas share a database). */
export const notifyChannel = (databaseUrl: string): string => `webhook_delivery:${schemaFromUrl(databaseUrl)}`;

/**
 * Sends one claimed delivery: signed with the endpoint's secret(s) at this attempt's time, the
 * same `webhook-id` on every attempt; then records the attempt and its outcome.
 */
export async function sendDelivery(deps: WebhookDeps, delivery: ClaimedDelivery): Promise<void> {
  const at = now(deps);
  const id = webhookIdOf(delivery.eventId);
  const body = JSON.stringify(delivery.payload);
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(signingSecrets(delivery, at), id, at, body),
  };
  const result = await postWebhook(delivery.url, headers, body, {
    timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
    policy: urlPolicyOf(deps.config.NODE_ENV),
    resolve: deps.resolve,
  });
  webhookMetrics.attemptSeconds.observe(result.durationMs / 1000);
  const outcome = await recordAttempt(deps, delivery, at, result);
  webhookMetrics.deliveries.inc({ outcome: outcome.kind });
}

export interface WebhookWorker {
  name: string;
  stop(): Promise<void>;
}

/**
 * The delivery worker of one vendor instance: claims due deliveries (several instances take
 * disjoint rows; at most WEBHOOK_ENDPOINT_CONCURRENCY in flight per endpoint, so a slow receiver
 * holds up only its own) and sends each as soon as it is claimed, up to WEBHOOK_MAX_IN_FLIGHT at
 * once. Woken by the triggers' NOTIFY, by each finished attempt, and every WEBHOOK_POLL_MS (due
 * retries, leases run out).
 */
export function startWebhookWorker(deps: WebhookDeps): WebhookWorker {
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let claiming = false;
  let again = false;

  const pump = async () => {
    claiming = true;
    try {
      do {
        again = false;
        const room = deps.config.WEBHOOK_MAX_IN_FLIGHT - inFlight.size;
        if (room <= 0 || stopped) break;
        const claimed = await claimDueDeliveries(deps, room);
        for (const delivery of claimed) {
          const sending: Promise<void> = sendDelivery(deps, delivery)
            .catch((err: unknown) => deps.log.warn({ err, deliveryId: delivery.id }, 'webhook attempt not recorded; retried when its lease ends'))
            .finally(() => {
              inFlight.delete(sending);
              wake();
            });
          inFlight.add(sending);
        }
        if (claimed.length === room) again = true;
      } while (again && !stopped);
    } catch (err) {
      deps.log.warn({ err }, 'webhook claim failed; the next round retries');
    } finally {
      claiming = false;
    }
  };
  const wake = () => {
    if (stopped) return;
    if (claiming) again = true;
    else void pump();
  };

  const listener = new Client({ connectionString: connectionStringWithoutSchema(deps.config.DATABASE_URL) });
  listener.on('notification', wake);
  listener.on('error', (err) => deps.log.warn({ err }, 'webhook NOTIFY listener failed; polling only'));
  const listening = listener
    .connect()
    .then(() => listener.query(`LISTEN "${notifyChannel(deps.config.DATABASE_URL)}"`))
    .catch((err: unknown) => deps.log.warn({ err }, 'webhook NOTIFY listener not started; polling only'));
  const timer = setInterval(wake, deps.config.WEBHOOK_POLL_MS);
  void listening.then(wake);

  return {
    name: 'webhook-deliveries',
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listening;
      await listener.end().catch(() => undefined);
      await Promise.all(inFlight);
    },
  };
}

/** Queue depth for /metrics: pending deliveries of enabled endpoints, and disabled endpoints. */
export async function webhookGauges(deps: Pick<WebhookDeps, 'prisma'>): Promise<{ pending: number; disabled: number }> {
  const { rows } = await sqlPoolOf(deps.prisma).query<{ pending: number; disabled: number }>(
    `SELECT (SELECT count(*)::int FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id WHERE d.status = 'pending' AND e.enabled) AS pending,
            (SELECT count(*)::int FROM webhook_endpoint WHERE NOT enabled) AS disabled`,
  );
  return rows[0];
}
