import type { VendorContext, VendorFeature } from '../feature';
import type { WebhookDeps } from './delivery';
import { webhookConsumers } from './events';
import { systemResolve } from './http';
import { webhookRoutes } from './routes';
import { startWebhookWorker } from './worker';

/** What the webhook routes and worker take: the service's parts and the system resolver. */
export const webhookDeps = (ctx: VendorContext): WebhookDeps => ({ ...ctx, resolve: systemResolve });

/**
 * Vendor webhooks (Standard Webhooks): the store's endpoints, deliveries written by the shipment
 * triggers (migration 20261127160000_webhooks) and by the checkout.return.requested consumer, and
 * sent by the delivery worker.
 */
export const webhooksFeature: VendorFeature = {
  name: 'webhooks',
  routes: (router, ctx) => webhookRoutes(router, webhookDeps(ctx)),
  consumers: webhookConsumers,
  workers: (ctx) => [startWebhookWorker(webhookDeps(ctx))],
};
