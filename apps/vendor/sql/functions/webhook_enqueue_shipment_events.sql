-- webhook_enqueue_shipment_events: part of vendor webhooks (apps/vendor/src/webhooks); created by the webhooks migration,
-- kept here as its source and applied after the migrations.
CREATE OR REPLACE FUNCTION webhook_enqueue_shipment_events(p_changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  written int;
BEGIN
  WITH changes AS (
    SELECT s.*, (c.change ->> 'previous')::shipment_status AS previous_status
    FROM jsonb_array_elements(p_changes) AS c(change)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::shipment, c.change -> 'shipment') AS s
  ), events AS MATERIALIZED (
    SELECT gen_random_uuid() AS event_id, t.type, c.store_id,
      jsonb_build_object('type', t.type, 'timestamp', webhook_iso(clock_timestamp()), 'data', jsonb_build_object(
        'subOrderId', c.id, 'shipmentId', c.id, 'orderId', c.order_id, 'shortId', c.short_id, 'storeId', c.store_id,
        'status', c.status, 'previousStatus', c.previous_status, 'sequence', c.status_sequence,
        'subtotal', c.subtotal::text, 'shippingFee', c.shipping_fee::text, 'total', c.total::text,
        'courier', c.courier, 'trackingId', c.tracking_id, 'trackingUrl', c.tracking_url, 'cancelReason', c.cancel_reason,
        'createdAt', webhook_iso(c.created_at), 'paidAt', webhook_iso(c.paid_at), 'shippedAt', webhook_iso(c.shipped_at),
        'deliveredAt', webhook_iso(c.delivered_at), 'cancelledAt', webhook_iso(c.cancelled_at))) AS payload
    FROM changes c CROSS JOIN LATERAL unnest(webhook_event_types(c.previous_status, c.status)) AS t(type)
  )
  INSERT INTO webhook_delivery (id, endpoint_id, event_id, event_type, payload, next_attempt_at)
  SELECT gen_random_uuid(), e.id, ev.event_id, ev.type, ev.payload, now()
  FROM events ev JOIN webhook_endpoint e ON e.store_id = ev.store_id AND e.enabled AND ev.type = ANY (e.events);
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written > 0 THEN
    PERFORM pg_notify('webhook_delivery:' || current_schema(), '');
  END IF;
END $$;
