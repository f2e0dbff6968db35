-- The messaging tables every service keeps (packages/bus), applied by the migration runner into each
-- service schema before the service's own migrations (recorded as `bus:<folder>`). Written to be a
-- no-op on databases whose first service migration created these tables before they moved here.
CREATE TABLE IF NOT EXISTS outbox (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  type text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_' || TG_TABLE_SCHEMA, '');
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS outbox_notify ON outbox;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

CREATE TABLE IF NOT EXISTS inbox (
  consumer text NOT NULL,
  event_id uuid NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

CREATE TABLE IF NOT EXISTS parked_message (
  id bigserial PRIMARY KEY,
  consumer text NOT NULL,
  event_id text NOT NULL,
  subject text NOT NULL,
  payload text NOT NULL,
  error text NOT NULL,
  deliveries integer NOT NULL,
  parked_at timestamptz NOT NULL DEFAULT now()
);
