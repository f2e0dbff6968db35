-- The aggregate an outbox event belongs to (`order:<id>`, `shipment:<id>`, …; NULL: none): after a
-- failed publish the relay holds the later rows of that aggregate until the failed one goes out.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS aggregate text;
