-- notifier: the e-mail log.
-- The messaging tables (outbox, inbox, parked_message) that were here moved to packages/bus/migrations,
-- which the runner applies into this schema first; previous-checksums lets databases migrated before the move keep working.

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
