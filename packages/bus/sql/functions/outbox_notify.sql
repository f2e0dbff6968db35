-- The outbox trigger's function (trigger outbox_notify, FOR EACH STATEMENT with the inserted rows as
-- `inserted_rows`): wakes the relay (NOTIFY outbox_<schema>) when a statement inserted outbox rows,
-- unless the transaction hands its rows to the relay itself (pasar.outbox_handed_over = on).
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('pasar.outbox_handed_over', true) = 'on' THEN
    RETURN NULL;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM inserted_rows) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_notify('outbox_' || TG_TABLE_SCHEMA, '');
  RETURN NULL;
END $$;
