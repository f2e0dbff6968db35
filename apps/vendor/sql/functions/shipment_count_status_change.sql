-- shipment_count_status_change: part of vendor webhooks (apps/vendor/src/webhooks); created by the webhooks migration,
-- kept here as its source and applied after the migrations.
CREATE OR REPLACE FUNCTION shipment_count_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    NEW.status_sequence := OLD.status_sequence + 1;
  END IF;
  RETURN NEW;
END $$;
