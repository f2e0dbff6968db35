-- One-statement inbox consumers (consumeWithInbox's `claimAndHandle`): takes the batch's advisory
-- locks in the order given (the consumer sorts them; the same hash as @pasar/db's lockKey), then
-- inserts the inbox rows; answers the ids that were new, the events to handle. VOLATILE plpgsql, so
-- the statements after it take a new snapshot and see what committed while it waited for a lock.
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
