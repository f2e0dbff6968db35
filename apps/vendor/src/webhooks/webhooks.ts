import { randomUUID } from 'node:crypto';
import {
  MAX_WEBHOOK_ENDPOINTS,
  type CreateWebhookBody,
  type UpdateWebhookBody,
  type WebhookDeliveriesQuery,
  type WebhookDeliveryStatus,
} from '@pasar/contracts';
import { lockKey } from '@pasar/db';
import { ProblemError, afterTimeCursor, badRequest, notFound, timePage } from '@pasar/service-kit';
import { now } from '../deps';
import type { Prisma, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../generated/prisma/client';
import { disableEndpoint, type WebhookDeps } from './delivery';
import { checkUrl } from './http';
import { ROTATION_OVERLAP_MS, newSecret, urlPolicyOf } from './rules';
import { notifyChannel } from './worker';

export type DeliveryWithAttempts = WebhookDelivery & { attemptLog: WebhookAttempt[] };

const endpointDisabled = () => new ProblemError(409, 'endpoint_disabled', 'the endpoint is disabled; enable it first');

/** 400 unsafe_url unless the URL passes the policy of this environment (scheme, then every address its host resolves to). */
async function requireSafeUrl(deps: WebhookDeps, url: string): Promise<void> {
  const checked = await checkUrl(new URL(url), urlPolicyOf(deps.config.NODE_ENV), deps.resolve);
  if (!checked.ok) throw badRequest('unsafe_url', checked.reason);
}

/** The store's endpoint `id`; another store's, or none, is 404. */
async function ownEndpoint(deps: Pick<WebhookDeps, 'prisma'>, storeId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await deps.prisma.webhookEndpoint.findFirst({ where: { id, storeId } });
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

/** Wakes the delivery workers of every instance (sent on commit). */
export async function wakeWorkers(deps: Pick<WebhookDeps, 'prisma' | 'config'>): Promise<void> {
  await deps.prisma.$executeRaw`SELECT pg_notify(${notifyChannel(deps.config.DATABASE_URL)}, '')`;
}

/**
 * A new endpoint of the store (at most 10): its URL checked, a new secret, which is answered only
 * here. `contactEmail` (the signed-in vendor) is told when the endpoint gets disabled.
 */
export async function createEndpoint(
  deps: WebhookDeps,
  storeId: string,
  contactEmail: string,
  body: CreateWebhookBody,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await requireSafeUrl(deps, body.url);
  const secret = newSecret();
  const endpoint = await deps.prisma.$transaction(async (tx) => {
    await lockKey(tx, `webhooks:${storeId}`);
    if ((await tx.webhookEndpoint.count({ where: { storeId } })) >= MAX_WEBHOOK_ENDPOINTS) {
      throw new ProblemError(409, 'endpoint_limit', `a store has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
    }
    const at = now(deps);
    return tx.webhookEndpoint.create({
      data: { id: randomUUID(), storeId, url: body.url, description: body.description || null, events: body.events, secret, contactEmail, createdAt: at, updatedAt: at },
    });
  });
  return { endpoint, secret };
}

export function listEndpoints(deps: Pick<WebhookDeps, 'prisma'>, storeId: string): Promise<WebhookEndpoint[]> {
  return deps.prisma.webhookEndpoint.findMany({ where: { storeId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export const getEndpoint = ownEndpoint;

/**
 * Changes url (checked again), events, description or enabled. Disabling fails its pending
 * deliveries; enabling clears the failure state and replays nothing (replayFailed does).
 */
export async function updateEndpoint(deps: WebhookDeps, storeId: string, id: string, body: UpdateWebhookBody): Promise<WebhookEndpoint> {
  await ownEndpoint(deps, storeId, id);
  if (body.url !== undefined) await requireSafeUrl(deps, body.url);
  const at = now(deps);
  return deps.prisma.$transaction(async (tx) => {
    const data: Prisma.WebhookEndpointUpdateManyMutationInput = { updatedAt: at };
    if (body.url !== undefined) data.url = body.url;
    if (body.events !== undefined) data.events = body.events;
    if (body.description !== undefined) data.description = body.description || null;
    if (body.enabled === true) Object.assign(data, { enabled: true, disabledReason: null, failingSince: null });
    await tx.webhookEndpoint.updateMany({ where: { id, storeId }, data });
    if (body.enabled === false) await disableEndpoint(tx, id, 'vendor', 'disabled by the vendor', at);
    return tx.webhookEndpoint.findUniqueOrThrow({ where: { id } });
  });
}

export async function deleteEndpoint(deps: Pick<WebhookDeps, 'prisma'>, storeId: string, id: string): Promise<void> {
  const { count } = await deps.prisma.webhookEndpoint.deleteMany({ where: { id, storeId } });
  if (count === 0) throw notFound('webhook endpoint');
}

/** A new secret, answered once; the current one becomes the previous one and signs too for 24 h. */
export async function rotateSecret(deps: WebhookDeps, storeId: string, id: string): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
  const endpoint = await ownEndpoint(deps, storeId, id);
  const secret = newSecret();
  const at = now(deps);
  const previousSecretExpiresAt = new Date(at.getTime() + ROTATION_OVERLAP_MS);
  const { count } = await deps.prisma.webhookEndpoint.updateMany({
    where: { id, storeId, secret: endpoint.secret },
    data: { secret, previousSecret: endpoint.secret, previousSecretUntil: previousSecretExpiresAt, updatedAt: at },
  });
  if (count === 0) throw new ProblemError(409, 'rotation_conflict', 'the secret was rotated at the same time; try again');
  return { secret, previousSecretExpiresAt };
}

/** A `ping` delivery to the endpoint, due now. */
export async function sendTestPing(deps: WebhookDeps, storeId: string, id: string): Promise<DeliveryWithAttempts> {
  const endpoint = await ownEndpoint(deps, storeId, id);
  if (!endpoint.enabled) throw endpointDisabled();
  const at = now(deps);
  const delivery = await deps.prisma.webhookDelivery.create({
    data: {
      id: randomUUID(),
      endpointId: id,
      eventId: randomUUID(),
      eventType: 'ping',
      payload: { type: 'ping', timestamp: at.toISOString(), data: { endpointId: id } },
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
    },
    include: { attemptLog: true },
  });
  await wakeWorkers(deps);
  return delivery;
}

/** The endpoint's deliveries, newest first, with their attempts in order; `nextCursor` null on the last page. */
export async function listDeliveries(
  deps: Pick<WebhookDeps, 'prisma'>,
  storeId: string,
  endpointId: string,
  query: WebhookDeliveriesQuery,
): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor: string | null }> {
  await ownEndpoint(deps, storeId, endpointId);
  const where: Prisma.WebhookDeliveryWhereInput = { endpointId, ...afterTimeCursor(query.cursor) };
  if (query.status) where.status = query.status satisfies WebhookDeliveryStatus;
  const rows = await deps.prisma.webhookDelivery.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    include: { attemptLog: { orderBy: { id: 'asc' } } },
  });
  const { page: deliveries, nextCursor } = timePage(rows, query.limit);
  return { deliveries, nextCursor };
}

/**
 * Sends a delivery of the store again now (same webhook-id), with what is left of the retry
 * schedule (at least this attempt). Still pending: 409; the endpoint disabled: 409.
 */
export async function retryDelivery(deps: WebhookDeps, storeId: string, deliveryId: string): Promise<DeliveryWithAttempts> {
  await sendAgainNow(deps, { id: deliveryId, endpoint: { storeId } }, { status: { not: 'pending' } }, 'the delivery is still being tried');
  return deps.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId }, include: { attemptLog: { orderBy: { id: 'asc' } } } });
}

/**
 * Makes the delivery `which` names due now (same webhook-id): 404 when none, 409
 * `endpoint_disabled` when its endpoint is off, 409 `delivery_pending` (`busy`) unless it also
 * matches `onlyWhen`; then wakes the workers. The store's retry and the operators' share it.
 */
export async function sendAgainNow(deps: WebhookDeps, which: Prisma.WebhookDeliveryWhereInput, onlyWhen: Prisma.WebhookDeliveryWhereInput, busy: string): Promise<void> {
  const delivery = await deps.prisma.webhookDelivery.findFirst({ where: which, select: { id: true, endpoint: { select: { enabled: true } } } });
  if (!delivery) throw notFound('webhook delivery');
  if (!delivery.endpoint.enabled) throw endpointDisabled();
  const at = now(deps);
  const { count } = await deps.prisma.webhookDelivery.updateMany({
    where: { id: delivery.id, ...onlyWhen },
    data: { status: 'pending', nextAttemptAt: at, claimedUntil: null, updatedAt: at },
  });
  if (count === 0) throw new ProblemError(409, 'delivery_pending', busy);
  await wakeWorkers(deps);
}

/** Sends the endpoint's failed deliveries created at or after `since` again (after re-enabling it). */
export async function replayFailed(deps: WebhookDeps, storeId: string, endpointId: string, since: Date): Promise<number> {
  const endpoint = await ownEndpoint(deps, storeId, endpointId);
  if (!endpoint.enabled) throw endpointDisabled();
  const at = now(deps);
  const { count } = await deps.prisma.webhookDelivery.updateMany({
    where: { endpointId, status: 'failed', createdAt: { gte: since } },
    data: { status: 'pending', nextAttemptAt: at, claimedUntil: null, updatedAt: at },
  });
  if (count > 0) await wakeWorkers(deps);
  return count;
}
