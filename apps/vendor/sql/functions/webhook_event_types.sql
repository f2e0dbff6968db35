-- webhook_event_types: part of vendor webhooks (apps/vendor/src/webhooks); created by the webhooks migration,
-- kept here as its source and applied after the migrations.
CREATE OR REPLACE FUNCTION webhook_event_types(p_previous shipment_status, p_status shipment_status) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_remove(ARRAY[
    CASE WHEN p_previous IS NULL THEN 'sub_order.created' END,
    CASE WHEN p_status = 'paid' THEN 'sub_order.paid' END,
    CASE WHEN p_status = 'cancelled' THEN 'sub_order.cancelled' END,
    CASE WHEN p_previous IS NOT NULL AND p_status IN ('shipped', 'delivered', 'cancelled') THEN 'shipment.status_changed' END
  ], NULL)
$$;
