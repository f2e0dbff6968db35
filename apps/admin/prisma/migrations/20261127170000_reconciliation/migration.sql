-- Carrier settlement reconciliation: what a booking expected, what a bill charged, where each
-- shipment stands, and the dispute/resolve history of a reconciliation line.

-- At booking: the store, declared and volumetric weight, and the quoted cost with its currency.
ALTER TABLE carrier_booking
  ADD COLUMN store_id uuid,
  ADD COLUMN declared_kg numeric(10, 3),
  ADD COLUMN volumetric_kg numeric(10, 3),
  ADD COLUMN quoted_cost numeric(12, 2),
  ADD COLUMN quoted_currency text;

-- From each settlement row: the billed weight (rows imported before this have none).
ALTER TABLE settlement_record ADD COLUMN billed_kg numeric(10, 3);
CREATE INDEX settlement_record_tracking_id_idx ON settlement_record (tracking_id);

-- The latest status of each shipment (vendor.shipment.status_changed, newest change wins).
CREATE TABLE shipment_state (
  shipment_id uuid PRIMARY KEY,
  order_id uuid NOT NULL,
  store_id uuid NOT NULL,
  status text NOT NULL,
  shipped_at timestamptz(6),
  changed_at timestamptz(6) NOT NULL
);

-- Dispute and resolve notes of a reconciliation line (keyed by tracking id), oldest first.
CREATE TABLE reconciliation_note (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  tracking_id text NOT NULL,
  action text NOT NULL CHECK (action IN ('dispute', 'resolve')),
  outcome text,
  note text NOT NULL,
  actor_id uuid NOT NULL,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX reconciliation_note_tracking_id_seq_idx ON reconciliation_note (tracking_id, seq);
