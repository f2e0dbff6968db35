import { consume, type Bus, type RunningConsumer } from '@pasar/bus';
import { notifyEmailRequested } from '@pasar/contracts';
import { deliver, type DeliveryDeps } from './deliver';

export interface EmailConsumerOptions {
  /** Pauses before each redelivery; the message is tried `backoffMs.length + 1` times in all. */
  backoffMs: number[];
}

/**
 * `notify.email.requested` → deliver. A failed send throws, so JetStream redelivers it after the
 * next backoff pause; after the last attempt the row stays `failed` and the message is parked in
 * `parked_message`. Duplicates (a re-published event, or the rpc having sent the same messageId)
 * are absorbed by deliver's per-messageId log, so no inbox row is needed.
 */
export function consumeEmailRequests(bus: Bus, deps: DeliveryDeps, options: EmailConsumerOptions): RunningConsumer {
  return consume(bus, {
    name: 'email-requested',
    event: notifyEmailRequested,
    backoffMs: options.backoffMs,
    maxDeliver: options.backoffMs.length + 1,
    parking: deps.prisma,
    handler: async (message, ctx) => {
      await deliver({ ...deps, log: deps.log.child({ eventId: ctx.envelope.id, requestId: ctx.requestId, delivery: ctx.deliveryCount }) }, message);
    },
  });
}
