-- The outbox trigger fires once per INSERT statement, also for a statement that inserted no row
-- (a handler's `INSERT INTO outbox ... SELECT` whose SELECT found nothing to announce, e.g.
-- vendor's created handler for an unpaid order): such a commit woke the relay for nothing. The
-- trigger now sees the statement's rows (a transition table) and notifies only when there is one.
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
DROP TRIGGER IF EXISTS outbox_notify ON outbox;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
