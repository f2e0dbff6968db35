-- webhook_shipments_updated: part of vendor webhooks (apps/vendor/src/webhooks); created by the webhooks migration,
-- kept here as its source and applied after the migrations.
CREATE OR REPLACE FUNCTION webhook_shipments_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_rows n JOIN webhook_endpoint e ON e.store_id = n.store_id AND e.enabled) THEN
    PERFORM webhook_enqueue_shipment_events(
      (SELECT jsonb_agg(jsonb_build_object('shipment', to_jsonb(n), 'previous', o.status) ORDER BY n.id)
       FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.status IS DISTINCT FROM o.status));
  END IF;
  RETURN NULL;
END $$;
