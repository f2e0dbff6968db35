import {
  adminWebhookDeliveriesQuery,
  createWebhookBody,
  replayWebhookBody,
  updateWebhookBody,
  uuidParam,
  webhookDeliveriesQuery,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookEventType,
} from '@pasar/contracts';
import { API_PREFIX, parse, requireRole } from '@pasar/service-kit';
import type { Request, Router } from 'express';
import type { WebhookEndpoint } from '../generated/prisma/client';
import { requireOwnStore } from '../stores/access';
import { listProblemDeliveries, retryAnyDelivery } from './admin';
import type { WebhookDeps } from './delivery';
import { webhookIdOf } from './rules';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayFailed,
  retryDelivery,
  rotateSecret,
  sendTestPing,
  updateEndpoint,
  type DeliveryWithAttempts,
} from './webhooks';

const BASE = '/vendor/webhooks';

/** The caller's store and the id of the path. */
async function target(deps: WebhookDeps, req: Request): Promise<[string, string]> {
  const storeId = await requireOwnStore(deps.prisma, req);
  return [storeId, parse(uuidParam, req.params).id];
}

/** The vendor's webhook endpoints and their deliveries; the store is always the caller's own (another's is 404). */
export function webhookRoutes(router: Router, deps: WebhookDeps): void {
  router.post(BASE, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    const { email } = requireRole(req, 'vendor');
    const { endpoint, secret } = await createEndpoint(deps, storeId, email, parse(createWebhookBody, req.body));
    res.status(201).location(`${API_PREFIX}${BASE}/${endpoint.id}`).json({ ...toEndpointView(endpoint), secret });
  });

  router.get(BASE, async (req, res) => {
    const storeId = await requireOwnStore(deps.prisma, req);
    res.json((await listEndpoints(deps, storeId)).map(toEndpointView));
  });

  router.get(`${BASE}/:id`, async (req, res) => {
    res.json(toEndpointView(await getEndpoint(deps, ...(await target(deps, req)))));
  });

  router.patch(`${BASE}/:id`, async (req, res) => {
    const [storeId, id] = await target(deps, req);
    res.json(toEndpointView(await updateEndpoint(deps, storeId, id, parse(updateWebhookBody, req.body))));
  });

  router.delete(`${BASE}/:id`, async (req, res) => {
    await deleteEndpoint(deps, ...(await target(deps, req)));
    res.status(204).end();
  });

  router.post(`${BASE}/:id/rotate-secret`, async (req, res) => {
    const rotated = await rotateSecret(deps, ...(await target(deps, req)));
    res.json({ secret: rotated.secret, previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString() });
  });

  router.post(`${BASE}/:id/test`, async (req, res) => {
    res.status(201).json(toDeliveryView(await sendTestPing(deps, ...(await target(deps, req)))));
  });

  router.get(`${BASE}/:id/deliveries`, async (req, res) => {
    const [storeId, id] = await target(deps, req);
    const page = await listDeliveries(deps, storeId, id, parse(webhookDeliveriesQuery, req.query));
    res.json({ deliveries: page.deliveries.map(toDeliveryView), nextCursor: page.nextCursor });
  });

  router.post(`${BASE}/:id/replay`, async (req, res) => {
    const [storeId, id] = await target(deps, req);
    const { since } = parse(replayWebhookBody, req.body);
    res.json({ requeued: await replayFailed(deps, storeId, id, new Date(since)) });
  });

  router.post(`${BASE}/deliveries/:id/retry`, async (req, res) => {
    res.json(toDeliveryView(await retryDelivery(deps, ...(await target(deps, req)))));
  });

  // operators (console "Failed work"): every store's failing deliveries
  router.get('/admin/vendor/webhook-deliveries', async (req, res) => {
    requireRole(req, 'admin');
    res.json(await listProblemDeliveries(deps, parse(adminWebhookDeliveriesQuery, req.query)));
  });

  router.post('/admin/vendor/webhook-deliveries/:id/retry', async (req, res) => {
    requireRole(req, 'admin');
    res.json(await retryAnyDelivery(deps, parse(uuidParam, req.params).id));
  });
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** An endpoint as the API answers it: never its secrets. */
export function toEndpointView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events as WebhookEventType[],
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    failingSince: iso(endpoint.failingSince),
    previousSecretExpiresAt: endpoint.previousSecret ? iso(endpoint.previousSecretUntil) : null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

export function toDeliveryView(delivery: DeliveryWithAttempts): WebhookDeliveryView {
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    webhookId: webhookIdOf(delivery.eventId),
    eventType: delivery.eventType,
    payload: delivery.payload as Record<string, unknown>,
    status: delivery.status,
    attempts: delivery.attemptLog.map((a) => ({
      attemptedAt: a.attemptedAt.toISOString(),
      httpStatus: a.httpStatus,
      durationMs: a.durationMs,
      error: a.error,
      responseBody: a.responseBody,
    })),
    nextAttemptAt: delivery.status === 'pending' ? iso(delivery.nextAttemptAt) : null,
    createdAt: delivery.createdAt.toISOString(),
  };
}
