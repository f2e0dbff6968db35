import type { AdminWebhookDeliveriesQuery, AdminWebhookDelivery } from '@pasar/contracts';
import { ProblemError, decodeTimeCursor, encodeTimeCursor, notFound } from '@pasar/service-kit';
import { now } from '../deps';
import type { Prisma } from '../generated/prisma/client';
import type { WebhookDeps } from './delivery';
import { wakeWorkers } from './webhooks';

const WITH_STORE_AND_LAST_ATTEMPT = {
  endpoint: { select: { url: true, enabled: true, storeId: true, store: { select: { name: true } } } },
  attemptLog: { orderBy: { id: 'desc' }, take: 1 },
} satisfies Prisma.WebhookDeliveryInclude;

type AdminDeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: typeof WITH_STORE_AND_LAST_ATTEMPT }>;

/** failing: pending again after a failed attempt; failed: given up, or its endpoint was disabled. */
function statusWhere(status: AdminWebhookDeliveriesQuery['status']): Prisma.WebhookDeliveryWhereInput {
  return status === 'failed' ? { status: 'failed' } : { status: 'pending', attemptLog: { some: {} } };
}

/** Failing or failed deliveries of every store, newest first; `nextCursor` null on the last page. */
export async function listProblemDeliveries(
  deps: Pick<WebhookDeps, 'prisma'>,
  query: AdminWebhookDeliveriesQuery,
): Promise<{ deliveries: AdminWebhookDelivery[]; nextCursor: string | null }> {
  const after = query.cursor ? decodeTimeCursor(query.cursor) : null;
  const where: Prisma.WebhookDeliveryWhereInput = statusWhere(query.status);
  if (after) where.OR = [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }];
  const rows = await deps.prisma.webhookDelivery.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    include: WITH_STORE_AND_LAST_ATTEMPT,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return { deliveries: page.map(toAdminDelivery), nextCursor: rows.length > query.limit ? encodeTimeCursor({ at: last.createdAt, id: last.id }) : null };
}

/**
 * Sends a delivery of any store again now, same webhook-id: a failed one is pending again, a
 * failing one is due now. An attempt running now: 409; its endpoint disabled: 409.
 */
export async function retryAnyDelivery(deps: WebhookDeps, id: string): Promise<AdminWebhookDelivery> {
  const delivery = await deps.prisma.webhookDelivery.findUnique({ where: { id }, include: { endpoint: { select: { enabled: true } } } });
  if (!delivery) throw notFound('webhook delivery');
  if (!delivery.endpoint.enabled) throw new ProblemError(409, 'endpoint_disabled', 'the endpoint is disabled; the store has to enable it first');
  const at = now(deps);
  const { count } = await deps.prisma.webhookDelivery.updateMany({
    where: { id, OR: [{ status: { not: 'pending' } }, { claimedUntil: null }, { claimedUntil: { lt: at } }] },
    data: { status: 'pending', nextAttemptAt: at, claimedUntil: null, updatedAt: at },
  });
  if (count === 0) throw new ProblemError(409, 'delivery_pending', 'an attempt of the delivery is running now');
  await wakeWorkers(deps);
  return toAdminDelivery(await deps.prisma.webhookDelivery.findUniqueOrThrow({ where: { id }, include: WITH_STORE_AND_LAST_ATTEMPT }));
}

/** The endpoint's host only: its path and query may carry a token of the receiver. */
const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
};

function toAdminDelivery(row: AdminDeliveryRow): AdminWebhookDelivery {
  const lastAttempt = row.attemptLog[0];
  const lastError = lastAttempt ? (lastAttempt.error ?? (lastAttempt.httpStatus !== null ? `HTTP ${lastAttempt.httpStatus}` : null)) : null;
  return {
    id: row.id,
    storeId: row.endpoint.storeId,
    storeName: row.endpoint.store.name,
    endpointId: row.endpointId,
    endpointHost: hostOf(row.endpoint.url),
    endpointEnabled: row.endpoint.enabled,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    lastError,
    lastAttemptAt: lastAttempt?.attemptedAt.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: row.createdAt.toISOString(),
  };
}
