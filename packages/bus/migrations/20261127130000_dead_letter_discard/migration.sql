-- Dead letters an operator discarded (POST /admin/dead-letters/{service}/messages/{kind}/{id}/discard):
-- the row leaves outbox_dead_letter or parked_message and is kept here with the reason and who.
CREATE TABLE IF NOT EXISTS dead_letter_discard (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('outbox', 'consumer')),
  message_id text NOT NULL,
  type text NOT NULL,
  consumer text,
  event_id text NOT NULL,
  error text NOT NULL,
  payload text NOT NULL,
  reason text NOT NULL,
  discarded_by text,
  discarded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS dead_letter_discard_discarded_at ON dead_letter_discard (discarded_at);
