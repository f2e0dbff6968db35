import { consume, PermanentFailure, type Bus, type RunningConsumer } from '@pasar/bus';
import { notifyEmailRequested } from '@pasar/contracts';
import { DeliveryFailedError, deliver, type DeliveryDeps } from './deliver';

export interface EmailConsumerOptions {
  /** Pauses before each redelivery; the message is tried `backoffMs.length + 1` times in all. */
  backoffMs: number[];
}

/**
 * `notify.email.requested` → deliver. A send the SMTP server refuses throws, so JetStream
 * redelivers it after the next backoff pause; after the last attempt the row stays `failed` and
 * the message is parked in `parked_message` (a PermanentFailure). Any other failure (the database
 * away) is retried for as long as it takes: the message is never dropped for it. Duplicates (a re-published event, or the rpc having sent the same messageId)
 * are absorbed by deliver's per-messageId log, so no inbox row is needed.
 */
export function consumeEmailRequests(bus: Bus, deps: DeliveryDeps, options: EmailConsumerOptions): RunningConsumer {
  return consume(bus, {
    name: 'email-requested',
    event: notifyEmailRequested,
    backoffMs: options.backoffMs,
    parking: deps.prisma,
    handler: async (message, ctx) => {
      try {
        await deliver({ ...deps, log: deps.log.child({ eventId: ctx.envelope.id, requestId: ctx.requestId, delivery: ctx.deliveryCount }) }, message);
      } catch (err) {
        // the SMTP server refused it on the last attempt: that is the answer, park it
        if (err instanceof DeliveryFailedError && ctx.deliveryCount > options.backoffMs.length) throw new PermanentFailure(err.message, { cause: err });
        throw err;
      }
    },
  });
}
