-- What the pruning worker (packages/bus/src/pruning.ts) deletes by: published outbox rows and inbox
-- rows older than their retention.
CREATE INDEX IF NOT EXISTS outbox_published_at ON outbox (published_at) WHERE published_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS inbox_received_at ON inbox (received_at);
