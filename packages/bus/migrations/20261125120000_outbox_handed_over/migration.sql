-- A transaction whose outbox rows go straight to the relay (OutboxRelay.publishCommitted, e.g.
-- checkout's order batcher) says so with the transaction-local setting
-- `pasar.outbox_handed_over = 'on'`: its commit wakes no relay (the relay would read nothing it
-- may publish). Should the hand-over fail, the relay publishes those rows on its next wake-up.
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('pasar.outbox_handed_over', true) = 'on' THEN
    RETURN NULL;
  END IF;
  PERFORM pg_notify('outbox_' || TG_TABLE_SCHEMA, '');
  RETURN NULL;
END $$;
