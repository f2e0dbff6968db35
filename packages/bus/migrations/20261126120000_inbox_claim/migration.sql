-- One-statement inbox consumers (consumeWithInbox's `claimAndHandle`): the statement a consumer
-- sends for a batch is its whole transaction (autocommit: one round trip and one commit), and it
-- claims the batch here first. The lock keys' advisory locks are taken in the order given (the
-- consumer sorts them, so two batches never deadlock; the same hash as @pasar/db's lockKey), then
-- the inbox rows are inserted; the answer is the ids that were new: the events to handle. Called
-- from a VOLATILE plpgsql function, the statements after it take a new snapshot, so they see what
-- committed while this waited for a lock.
CREATE OR REPLACE FUNCTION inbox_claim(p_consumer text, p_event_ids uuid[], p_lock_keys text[]) RETURNS uuid[] LANGUAGE plpgsql AS $$
DECLARE
  k text;
  fresh uuid[];
BEGIN
  FOREACH k IN ARRAY coalesce(p_lock_keys, '{}') LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended(k, 0));
  END LOOP;
  WITH inserted AS (
    INSERT INTO inbox (consumer, event_id) SELECT p_consumer, id FROM unnest(p_event_ids) AS id
    ON CONFLICT DO NOTHING RETURNING event_id
  )
  SELECT coalesce(array_agg(event_id), '{}') INTO fresh FROM inserted;
  RETURN fresh;
END $$;
