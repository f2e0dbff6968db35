import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The webhook metrics of this process, registered on the vendor's /metrics registry at start
 * (registerWebhookMetrics): deliveries by outcome, attempt latency, queue depth, disabled endpoints.
 */
export const webhookMetrics = {
  deliveries: new Counter({
    name: 'pasar_webhook_attempts_total',
    help: 'Webhook attempts by outcome: delivered, retry, failed, gone (410, endpoint disabled)',
    labelNames: ['outcome'],
    registers: [],
  }),
  attemptSeconds: new Histogram({
    name: 'pasar_webhook_attempt_duration_seconds',
    help: 'Duration of one webhook attempt (connect to answer read)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [],
  }),
};

/** Adds the webhook metrics to `registry`; the two gauges count from the tables when scraped. */
export function registerWebhookMetrics(registry: Registry, gauges: () => Promise<{ pending: number; disabled: number }>, onError: (err: unknown) => void): void {
  registry.registerMetric(webhookMetrics.deliveries);
  registry.registerMetric(webhookMetrics.attemptSeconds);
  let last: Promise<{ pending: number; disabled: number }> | null = null;
  // both gauges of one scrape read one query
  const read = () => (last ??= gauges().finally(() => setTimeout(() => (last = null), 100)));
  new Gauge({
    name: 'pasar_webhook_queue_depth',
    help: 'Webhook deliveries waiting to be sent (enabled endpoints)',
    registers: [registry],
    async collect() {
      await read().then((g) => this.set(g.pending), onError);
    },
  });
  new Gauge({
    name: 'pasar_webhook_disabled_endpoints',
    help: 'Webhook endpoints disabled (410 Gone, days of failures, or by the vendor)',
    registers: [registry],
    async collect() {
      await read().then((g) => this.set(g.disabled), onError);
    },
  });
}
