-- notifier: messaging tables of packages/bus (packages/bus/sql/bus_tables.sql) and the e-mail log.

CREATE TABLE outbox (
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
CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_' || TG_TABLE_SCHEMA, '');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

CREATE TABLE inbox (
  consumer text NOT NULL,
  event_id uuid NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

CREATE TABLE parked_message (
  id bigserial PRIMARY KEY,
  consumer text NOT NULL,
  event_id text NOT NULL,
  subject text NOT NULL,
  payload text NOT NULL,
  error text NOT NULL,
  deliveries integer NOT NULL,
  parked_at timestamptz NOT NULL DEFAULT now()
);

CREATE TYPE email_status AS ENUM ('queued', 'sent', 'failed');

-- One row per e-mail (message_id), whichever path asked for it; status is the latest attempt's outcome.
CREATE TABLE email_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  message_id uuid NOT NULL,
  template text NOT NULL,
  recipient text NOT NULL,
  subject text NOT NULL,
  status email_status NOT NULL DEFAULT 'queued',
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX email_log_message_id_key ON email_log (message_id);
CREATE INDEX email_log_status_created_at_idx ON email_log (status, created_at);
