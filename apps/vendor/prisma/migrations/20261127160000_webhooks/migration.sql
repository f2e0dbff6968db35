-- Vendor webhooks (Standard Webhooks): a store's endpoints, one delivery per event per endpoint,
-- and every attempt of a delivery. Deliveries are written by triggers on `shipment`, in the
-- transaction that changes the shipment (the consumer's, with its inbox row, or the vendor's own
-- transition); the webhook worker (src/webhooks/worker.ts) sends them.

CREATE TYPE webhook_delivery_status AS ENUM ('pending', 'delivered', 'failed');

CREATE TABLE webhook_endpoint (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES store (id) ON DELETE CASCADE,
  url text NOT NULL,
  description text,
  events text[] NOT NULL,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_until timestamptz(6),
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  failing_since timestamptz(6),
  contact_email text NOT NULL,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoint_store_id_created_at_idx ON webhook_endpoint (store_id, created_at);

CREATE TABLE webhook_delivery (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoint (id) ON DELETE CASCADE,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  status webhook_delivery_status NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(6),
  claimed_until timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX webhook_delivery_endpoint_id_event_id_key ON webhook_delivery (endpoint_id, event_id);
CREATE INDEX webhook_delivery_endpoint_id_created_at_idx ON webhook_delivery (endpoint_id, created_at);
CREATE INDEX webhook_delivery_due_idx ON webhook_delivery (endpoint_id, next_attempt_at) WHERE status = 'pending';

CREATE TABLE webhook_attempt (
  id bigserial PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_delivery (id) ON DELETE CASCADE,
  attempted_at timestamptz(6) NOT NULL,
  http_status integer,
  duration_ms integer NOT NULL,
  error text,
  response_body text
);
CREATE INDEX webhook_attempt_delivery_id_idx ON webhook_attempt (delivery_id);

-- The per-shipment `sequence` of its webhook events: 1 at creation, one more on each status change.
ALTER TABLE shipment ADD COLUMN status_sequence integer NOT NULL DEFAULT 1;

CREATE OR REPLACE FUNCTION shipment_count_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    NEW.status_sequence := OLD.status_sequence + 1;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER shipment_count_status_change BEFORE UPDATE OF status ON shipment
  FOR EACH ROW EXECUTE FUNCTION shipment_count_status_change();

-- The webhook event types a shipment change makes (previous NULL: the shipment was created).
-- sub_order.created on creation; sub_order.paid / sub_order.cancelled when it becomes paid /
-- cancelled; shipment.status_changed when it becomes shipped, delivered or cancelled.
CREATE OR REPLACE FUNCTION webhook_event_types(p_previous shipment_status, p_status shipment_status) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_remove(ARRAY[
    CASE WHEN p_previous IS NULL THEN 'sub_order.created' END,
    CASE WHEN p_status = 'paid' THEN 'sub_order.paid' END,
    CASE WHEN p_status = 'cancelled' THEN 'sub_order.cancelled' END,
    CASE WHEN p_previous IS NOT NULL AND p_status IN ('shipped', 'delivered', 'cancelled') THEN 'shipment.status_changed' END
  ], NULL)
$$;

-- An ISO-8601 UTC timestamp with milliseconds, as the API answers them.
CREATE OR REPLACE FUNCTION webhook_iso(p_at timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- One delivery per event per enabled endpoint of the shipment's store subscribed to its type, for
-- p_changes = [{shipment: <shipment row>, previous: <status, or null when created>}]. Payload
-- {type, timestamp, data}: what the vendor reads through GET /vendor/shipments/{id} (ids,
-- statuses, amounts as strings, tracking), plus the shipment's `sequence`. Wakes the workers
-- (NOTIFY "webhook_delivery:<schema>", sent on commit).
CREATE OR REPLACE FUNCTION webhook_enqueue_shipment_events(p_changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  written int;
BEGIN
  WITH changes AS (
    SELECT s.*, (c.change ->> 'previous')::shipment_status AS previous_status
    FROM jsonb_array_elements(p_changes) AS c(change)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::shipment, c.change -> 'shipment') AS s
  ), events AS MATERIALIZED (
    SELECT gen_random_uuid() AS event_id, t.type, c.store_id,
      jsonb_build_object('type', t.type, 'timestamp', webhook_iso(clock_timestamp()), 'data', jsonb_build_object(
        'subOrderId', c.id, 'shipmentId', c.id, 'orderId', c.order_id, 'shortId', c.short_id, 'storeId', c.store_id,
        'status', c.status, 'previousStatus', c.previous_status, 'sequence', c.status_sequence,
        'subtotal', c.subtotal::text, 'shippingFee', c.shipping_fee::text, 'total', c.total::text,
        'courier', c.courier, 'trackingId', c.tracking_id, 'trackingUrl', c.tracking_url, 'cancelReason', c.cancel_reason,
        'createdAt', webhook_iso(c.created_at), 'paidAt', webhook_iso(c.paid_at), 'shippedAt', webhook_iso(c.shipped_at),
        'deliveredAt', webhook_iso(c.delivered_at), 'cancelledAt', webhook_iso(c.cancelled_at))) AS payload
    FROM changes c CROSS JOIN LATERAL unnest(webhook_event_types(c.previous_status, c.status)) AS t(type)
  )
  INSERT INTO webhook_delivery (id, endpoint_id, event_id, event_type, payload, next_attempt_at)
  SELECT gen_random_uuid(), e.id, ev.event_id, ev.type, ev.payload, now()
  FROM events ev JOIN webhook_endpoint e ON e.store_id = ev.store_id AND e.enabled AND ev.type = ANY (e.events);
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written > 0 THEN
    PERFORM pg_notify('webhook_delivery:' || current_schema(), '');
  END IF;
END $$;

-- Statement triggers: one check per statement; nothing more unless a store of the statement's
-- shipments has an enabled endpoint.
CREATE OR REPLACE FUNCTION webhook_shipments_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_rows n JOIN webhook_endpoint e ON e.store_id = n.store_id AND e.enabled) THEN
    PERFORM webhook_enqueue_shipment_events(
      (SELECT jsonb_agg(jsonb_build_object('shipment', to_jsonb(n), 'previous', NULL) ORDER BY n.id) FROM new_rows n));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION webhook_shipments_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_rows n JOIN webhook_endpoint e ON e.store_id = n.store_id AND e.enabled) THEN
    PERFORM webhook_enqueue_shipment_events(
      (SELECT jsonb_agg(jsonb_build_object('shipment', to_jsonb(n), 'previous', o.status) ORDER BY n.id)
       FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.status IS DISTINCT FROM o.status));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_shipments_inserted AFTER INSERT ON shipment
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_shipments_inserted();
CREATE TRIGGER webhook_shipments_updated AFTER UPDATE ON shipment
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_shipments_updated();
