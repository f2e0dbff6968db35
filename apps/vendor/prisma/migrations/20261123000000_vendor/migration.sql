-- Stores, shipping methods, pickup addresses and shipments (vendor issue).

CREATE TYPE store_status AS ENUM ('active', 'suspended');

CREATE TABLE store (
  id uuid PRIMARY KEY,
  application_id uuid NOT NULL UNIQUE,
  owner_user_id uuid NOT NULL UNIQUE,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  description text,
  logo_path text,
  banner_path text,
  tin text NOT NULL,
  msic_code text NOT NULL,
  sst_reg_no text,
  bank_name text NOT NULL,
  bank_account_number text NOT NULL,
  bank_account_name text NOT NULL,
  status store_status NOT NULL DEFAULT 'active',
  consent_accepted boolean NOT NULL,
  consent_accepted_at timestamptz(6),
  consent_tos_version text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TYPE carrier AS ENUM ('carrier_a', 'carrier_b');
CREATE TYPE shipping_rate_type AS ENUM ('flat', 'weight', 'dimension');

CREATE TABLE shipping_method (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES store (id) ON DELETE CASCADE,
  name text NOT NULL,
  provider carrier NOT NULL,
  type shipping_rate_type NOT NULL,
  rate_config jsonb NOT NULL,
  estimated_days_min integer CHECK (estimated_days_min >= 0),
  estimated_days_max integer CHECK (estimated_days_max >= 0),
  is_active boolean NOT NULL DEFAULT false,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  CHECK (estimated_days_min IS NULL OR estimated_days_max IS NULL OR estimated_days_min <= estimated_days_max)
);
CREATE INDEX shipping_method_store_id_created_at_idx ON shipping_method (store_id, created_at);

CREATE TABLE pickup_address (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES store (id) ON DELETE CASCADE,
  label text NOT NULL,
  address_line_1 text NOT NULL,
  postcode text NOT NULL,
  state text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX pickup_address_store_id_created_at_idx ON pickup_address (store_id, created_at);
CREATE UNIQUE INDEX pickup_address_one_default ON pickup_address (store_id) WHERE is_default;

CREATE TYPE shipment_status AS ENUM ('pending_payment', 'paid', 'processing', 'awaiting_pickup', 'shipped', 'delivered', 'cancelled');

CREATE TABLE shipment (
  id uuid PRIMARY KEY,
  order_id uuid NOT NULL,
  short_id text NOT NULL,
  store_id uuid NOT NULL REFERENCES store (id) ON DELETE RESTRICT,
  customer_id uuid NOT NULL,
  status shipment_status NOT NULL DEFAULT 'pending_payment',
  shipping_method_id uuid,
  subtotal numeric(12, 2) NOT NULL,
  shipping_fee numeric(12, 2) NOT NULL,
  total numeric(12, 2) NOT NULL,
  recipient_name text NOT NULL,
  recipient_phone text NOT NULL,
  address_line_1 text NOT NULL,
  address_line_2 text,
  city text NOT NULL,
  postcode text NOT NULL,
  state text NOT NULL,
  courier text,
  tracking_id text,
  tracking_url text,
  cancel_reason text,
  created_at timestamptz(6) NOT NULL,
  paid_at timestamptz(6),
  shipped_at timestamptz(6),
  delivered_at timestamptz(6),
  cancelled_at timestamptz(6),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX shipment_store_id_created_at_idx ON shipment (store_id, created_at);
CREATE INDEX shipment_store_id_status_created_at_idx ON shipment (store_id, status, created_at);
CREATE INDEX shipment_order_id_idx ON shipment (order_id);

CREATE TABLE shipment_item (
  id uuid PRIMARY KEY,
  shipment_id uuid NOT NULL REFERENCES shipment (id) ON DELETE CASCADE,
  product_id uuid NOT NULL,
  variant_id uuid,
  product_name text NOT NULL,
  variant_name text,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price numeric(12, 2) NOT NULL,
  weight_kg numeric(10, 3)
);
CREATE INDEX shipment_item_shipment_id_idx ON shipment_item (shipment_id);

CREATE TABLE paid_order (
  order_id uuid PRIMARY KEY,
  paid_at timestamptz(6) NOT NULL,
  received_at timestamptz(6) NOT NULL DEFAULT now()
);
