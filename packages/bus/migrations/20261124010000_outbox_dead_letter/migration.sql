-- Outbox rows the relay can never publish (larger than NATS accepts, refused by the stream, an
-- invalid subject): moved here with their error so the relay goes on with the next row. Listed and
-- replayed (back into the outbox) by packages/bus/src/dead-letters.ts.
CREATE TABLE IF NOT EXISTS outbox_dead_letter (
  id uuid PRIMARY KEY,
  seq bigint NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  error text NOT NULL,
  parked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS outbox_dead_letter_parked_at ON outbox_dead_letter (parked_at);
CREATE INDEX IF NOT EXISTS parked_message_parked_at ON parked_message (parked_at);
