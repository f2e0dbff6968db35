import { consumeWithInbox, type RunningConsumer, type SqlTx } from '@pasar/bus';
import { checkoutReturnRequested, type EventData } from '@pasar/contracts';
import type { VendorContext } from '../feature';

type ReturnRequested = EventData<typeof checkoutReturnRequested>;

/**
 * One `return.requested` delivery per enabled endpoint of the store subscribed to it, keyed by the
 * event id (the unique (endpoint_id, event_id) drops a second one), and the workers woken on commit
 * when any was written (the channel the shipment triggers notify). $1 event id, $2 payload, $3 store.
 */
const ENQUEUE_RETURN_REQUESTED = {
  name: 'vendor-webhook-return-requested',
  text: `WITH written AS (
      INSERT INTO webhook_delivery (id, endpoint_id, event_id, event_type, payload, next_attempt_at)
      SELECT gen_random_uuid(), e.id, $1::uuid, 'return.requested', $2::jsonb, now()
      FROM webhook_endpoint e
      WHERE e.store_id = $3::uuid AND e.enabled AND 'return.requested' = ANY (e.events)
      ON CONFLICT (endpoint_id, event_id) DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS written, CASE WHEN count(*) > 0 THEN pg_notify('webhook_delivery:' || current_schema(), '') END AS woken
    FROM written`,
};

/** The webhook payload of a requested return: `{type, timestamp, data}`, data as checkout announced it. */
export const returnRequestedPayload = (data: ReturnRequested, occurredAt: string) => ({ type: 'return.requested', timestamp: occurredAt, data });

/** Writes the deliveries of one checkout.return.requested in the consumer's transaction (with its inbox row). */
export async function enqueueReturnRequested(tx: SqlTx, eventId: string, data: ReturnRequested, occurredAt: string): Promise<number> {
  const { rows } = await tx.query<{ written: number }>({
    ...ENQUEUE_RETURN_REQUESTED,
    values: [eventId, JSON.stringify(returnRequestedPayload(data, occurredAt)), data.storeId],
  });
  return rows[0].written;
}

/** checkout.return.requested → the store's `return.requested` webhook deliveries. */
export function webhookConsumers(ctx: VendorContext): RunningConsumer[] {
  return [
    consumeWithInbox(ctx.bus, {
      name: 'webhooks-return-requested',
      event: checkoutReturnRequested,
      db: ctx.prisma,
      plainSql: true,
      handler: async (data, { tx, envelope }) => {
        await enqueueReturnRequested(tx, envelope.id, data, envelope.occurredAt);
      },
    }),
  ];
}
