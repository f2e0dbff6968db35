-- One index instead of two: the unique key led by tracking_id serves the import's conflict check
-- (ON CONFLICT infers it from the same columns) and every look-up by tracking id (reconciliation,
-- notes), so an import maintains one index per row, not two.
CREATE UNIQUE INDEX settlement_record_tracking_id_carrier_billed_on_key ON settlement_record (tracking_id, carrier, billed_on);
ALTER TABLE settlement_record DROP CONSTRAINT settlement_record_carrier_tracking_id_billed_on_key;
DROP INDEX settlement_record_tracking_id_idx;
