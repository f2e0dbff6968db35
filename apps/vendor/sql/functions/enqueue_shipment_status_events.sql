-- The outbox rows of vendor.shipment.status_changed (what transitionShipment enqueues, the envelope
-- built as enqueueEvent builds it) for the shipments a statement moved out of p_previous, given as a
-- JSON array of shipment rows: one event per shipment that is not pending_payment, in id order.
-- Each row names its aggregate as vendorShipmentStatusChanged.aggregateOf does (shipment:<id>).
-- Answers how many it enqueued. The one definition of that event in SQL: create_shipments and the
-- paid and closed handlers' statements (shipments/events.ts) call it.
CREATE OR REPLACE FUNCTION enqueue_shipment_status_events(
  p_moved jsonb, p_previous text, p_changed_at timestamptz, p_occurred_at text, p_type text, p_version int, p_source text
) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  enqueued int;
BEGIN
  INSERT INTO outbox (id, type, payload, headers, aggregate)
  SELECT e.event_id, p_type, jsonb_build_object('id', e.event_id, 'type', p_type, 'version', p_version, 'source', p_source,
    'occurredAt', p_occurred_at, 'data', jsonb_build_object(
      'shipmentId', e.id, 'orderId', e.order_id, 'storeId', e.store_id, 'status', e.status, 'previousStatus', p_previous,
      'courier', e.courier, 'trackingId', e.tracking_id, 'trackingUrl', e.tracking_url,
      'shippedAt', to_char(e.shipped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'deliveredAt', to_char(e.delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'cancelledAt', to_char(e.cancelled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'reason', e.cancel_reason, 'changedAt', to_char(p_changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))), '{}',
    'shipment:' || e.id
  FROM (SELECT gen_random_uuid() AS event_id, m.* FROM jsonb_populate_recordset(NULL::shipment, coalesce(p_moved, '[]')) m
        WHERE m.status <> 'pending_payment' ORDER BY m.id) AS e;
  GET DIAGNOSTICS enqueued = ROW_COUNT;
  RETURN enqueued;
END $$;
