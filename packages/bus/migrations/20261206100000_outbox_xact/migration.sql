-- The transaction that wrote each outbox row. With track_commit_timestamp on,
-- pg_xact_commit_timestamp(xact::xid) is when the row committed (the row's own xmin is the
-- relay's once it marks the row published); the bench's live-streams scenario measures commit →
-- event from it.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS xact xid8 DEFAULT pg_current_xact_id();
