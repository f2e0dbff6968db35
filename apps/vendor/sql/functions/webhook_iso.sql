-- webhook_iso: part of vendor webhooks (apps/vendor/src/webhooks); created by the webhooks migration,
-- kept here as its source and applied after the migrations.
CREATE OR REPLACE FUNCTION webhook_iso(p_at timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
