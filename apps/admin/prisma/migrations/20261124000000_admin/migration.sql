-- Vendor applications, carrier bookings (durable retry schedule), tracking index, settlements (admin issue).

CREATE TYPE vendor_application_status AS ENUM ('pending', 'approved', 'rejected');

CREATE TABLE vendor_application (
  id uuid PRIMARY KEY,
  applicant_user_id uuid NOT NULL,
  email text NOT NULL,
  full_name text NOT NULL,
  phone text NOT NULL,
  store_name text NOT NULL,
  description text,
  location_address text,
  location_lat numeric(9, 6),
  location_lng numeric(9, 6),
  ssm_cert_url text,
  logo_url text,
  banner_url text,
  bank_name text NOT NULL,
  bank_account_number text NOT NULL,
  bank_account_name text NOT NULL,
  status vendor_application_status NOT NULL DEFAULT 'pending',
  rejection_note text,
  reviewed_at timestamptz(6),
  tin text NOT NULL,
  msic_code text NOT NULL,
  sst_reg_no text,
  intermediary_consent_accepted boolean NOT NULL,
  intermediary_consent_at timestamptz(6),
  intermediary_consent_tos_version text,
  user_id uuid,
  store_id uuid,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX vendor_application_status_created_at_idx ON vendor_application (status, created_at);
CREATE INDEX vendor_application_created_at_idx ON vendor_application (created_at);
-- one pending application per applicant
CREATE UNIQUE INDEX vendor_application_one_pending ON vendor_application (applicant_user_id) WHERE status = 'pending';

CREATE TYPE carrier AS ENUM ('carrier_a', 'carrier_b');
CREATE TYPE carrier_booking_status AS ENUM ('success', 'pending_retry', 'failed');

CREATE TABLE carrier_booking (
  shipment_id uuid PRIMARY KEY,
  order_id uuid NOT NULL,
  carrier carrier NOT NULL,
  status carrier_booking_status NOT NULL,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz(6),
  claimed_until timestamptz(6),
  last_error text,
  request jsonb NOT NULL,
  tracking_number text,
  label_key text,
  booked_at timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX carrier_booking_status_next_attempt_at_idx ON carrier_booking (status, next_attempt_at);
-- the retry worker's scan: due rows only
CREATE INDEX carrier_booking_due ON carrier_booking (next_attempt_at) WHERE status = 'pending_retry';

CREATE TABLE tracking_index (
  tracking_id text PRIMARY KEY,
  shipment_id uuid NOT NULL,
  order_id uuid,
  courier text,
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE settlement_record (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigserial NOT NULL UNIQUE,
  carrier carrier NOT NULL,
  tracking_id text NOT NULL,
  actual_cost numeric(12, 2) NOT NULL,
  billed_on date NOT NULL,
  imported_at timestamptz(6) NOT NULL DEFAULT now(),
  imported_by uuid NOT NULL,
  adjustment_order_id uuid,
  notes text,
  CONSTRAINT settlement_record_carrier_tracking_id_billed_on_key UNIQUE (carrier, tracking_id, billed_on)
);
