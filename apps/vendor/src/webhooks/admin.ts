import type { AdminWebhookDeliveriesQuery, AdminWebhookDelivery } from '@pasar/contracts';
import { afterTimeCursor, timePage } from '@pasar/service-kit';
import { now } from '../deps';
import type { Prisma } from '../generated/prisma/client';
import type { WebhookDeps } from './delivery';
import { sendAgainNow } from './webhooks';

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
  const where: Prisma.WebhookDeliveryWhereInput = { ...statusWhere(query.status), ...afterTimeCursor(query.cursor) };
  const rows = await deps.prisma.webhookDelivery.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    include: WITH_STORE_AND_LAST_ATTEMPT,
  });
  const { page, nextCursor } = timePage(rows, query.limit);
  return { deliveries: page.map(toAdminDelivery), nextCursor };
}

/**
 * Sends a delivery of any store again now, same webhook-id: a failed one is pending again, a
 * failing one is due now. An attempt running now: 409; its endpoint disabled: 409.
 */
export async function retryAnyDelivery(deps: WebhookDeps, id: string): Promise<AdminWebhookDelivery> {
  // a failing delivery (pending, between attempts) may be hurried too, unless an attempt holds it now
  const at = now(deps);
  const notRunning = { OR: [{ status: { not: 'pending' as const } }, { claimedUntil: null }, { claimedUntil: { lt: at } }] };
  await sendAgainNow(deps, { id }, notRunning, 'an attempt of the delivery is running now');
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
