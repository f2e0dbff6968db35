-- Catalog, promotions, loyalty, orders, payments and family accounts (checkout issue).

-- catalog
CREATE TYPE product_status AS ENUM ('draft', 'live', 'archived');

CREATE TABLE category (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  slug text NOT NULL UNIQUE,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE store_replica (
  store_id uuid PRIMARY KEY,
  owner_user_id uuid NOT NULL,
  name text NOT NULL,
  slug text NOT NULL,
  logo_path text,
  status text NOT NULL,
  updated_at timestamptz(6) NOT NULL
);
CREATE INDEX store_replica_owner_user_id_idx ON store_replica (owner_user_id);

CREATE TABLE shipping_method_replica (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL,
  name text NOT NULL,
  provider text NOT NULL,
  type text NOT NULL,
  rate_config jsonb NOT NULL,
  estimated_days_min integer,
  estimated_days_max integer,
  is_active boolean NOT NULL,
  updated_at timestamptz(6) NOT NULL
);
CREATE INDEX shipping_method_replica_store_id_idx ON shipping_method_replica (store_id);

CREATE TABLE product (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL,
  category_id uuid REFERENCES category (id),
  name text NOT NULL,
  slug text NOT NULL,
  description text NOT NULL DEFAULT '',
  status product_status NOT NULL DEFAULT 'draft',
  base_price numeric(12, 2) NOT NULL CHECK (base_price >= 0),
  image_path text,
  weight_kg numeric(10, 3) CHECK (weight_kg > 0),
  length_cm numeric(10, 2) CHECK (length_cm > 0),
  width_cm numeric(10, 2) CHECK (width_cm > 0),
  height_cm numeric(10, 2) CHECK (height_cm > 0),
  stock integer NOT NULL DEFAULT 0 CHECK (stock >= 0),
  avg_rating numeric(3, 2) NOT NULL DEFAULT 0,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  UNIQUE (store_id, slug)
);
CREATE INDEX product_status_created_at_idx ON product (status, created_at);
CREATE INDEX product_category_id_idx ON product (category_id);

CREATE TABLE product_variant (
  id uuid PRIMARY KEY,
  product_id uuid NOT NULL REFERENCES product (id) ON DELETE CASCADE,
  name text NOT NULL,
  price_override numeric(12, 2) CHECK (price_override >= 0),
  stock integer NOT NULL DEFAULT 0 CHECK (stock >= 0),
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX product_variant_product_id_idx ON product_variant (product_id);

-- promotions
CREATE TYPE discount_type AS ENUM ('percentage', 'fixed');
CREATE TYPE voucher_tier AS ENUM ('platform', 'store');

CREATE TABLE voucher (
  id uuid PRIMARY KEY,
  code text NOT NULL UNIQUE,
  tier voucher_tier NOT NULL,
  store_id uuid,
  discount_type discount_type NOT NULL,
  discount_value numeric(12, 2) NOT NULL CHECK (discount_value > 0),
  min_order_amount numeric(12, 2) NOT NULL DEFAULT 0 CHECK (min_order_amount >= 0),
  max_uses integer CHECK (max_uses > 0),
  used_count integer NOT NULL DEFAULT 0 CHECK (used_count >= 0),
  starts_at timestamptz(6),
  ends_at timestamptz(6),
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  CONSTRAINT voucher_max_uses CHECK (max_uses IS NULL OR used_count <= max_uses),
  CONSTRAINT voucher_store_scope CHECK ((tier = 'store') = (store_id IS NOT NULL)),
  CONSTRAINT voucher_percentage CHECK (discount_type <> 'percentage' OR discount_value <= 100)
);

CREATE TABLE kol_code (
  id uuid PRIMARY KEY,
  code text NOT NULL UNIQUE,
  discount_type discount_type NOT NULL,
  discount_value numeric(12, 2) NOT NULL CHECK (discount_value > 0),
  category_id uuid NOT NULL REFERENCES category (id),
  is_active boolean NOT NULL DEFAULT true,
  used_count integer NOT NULL DEFAULT 0 CHECK (used_count >= 0),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  CONSTRAINT kol_code_percentage CHECK (discount_type <> 'percentage' OR discount_value <= 100)
);

CREATE TABLE customer_profile (
  customer_id uuid PRIMARY KEY,
  tin text,
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

-- loyalty
CREATE TYPE loyalty_transaction_type AS ENUM ('earn', 'redeem', 'release', 'reversal', 'adjustment');

CREATE TABLE loyalty_account (
  customer_id uuid PRIMARY KEY,
  balance integer NOT NULL DEFAULT 0 CHECK (balance >= 0),
  total_earned integer NOT NULL DEFAULT 0,
  total_redeemed integer NOT NULL DEFAULT 0,
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE loyalty_transaction (
  id uuid PRIMARY KEY,
  customer_id uuid NOT NULL,
  type loyalty_transaction_type NOT NULL,
  points integer NOT NULL,
  order_id uuid,
  sub_order_id uuid,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX loyalty_transaction_customer_id_created_at_idx ON loyalty_transaction (customer_id, created_at);

-- orders and payments
CREATE TYPE order_status AS ENUM ('pending_payment', 'paid', 'processing', 'partially_shipped', 'shipped', 'delivered', 'cancelled', 'payment_failed', 'expired');
CREATE TYPE sub_order_status AS ENUM ('pending_payment', 'paid', 'processing', 'awaiting_pickup', 'shipped', 'delivered', 'cancelled');
CREATE TYPE payment_status AS ENUM ('pending', 'paid', 'failed', 'expired');

CREATE TABLE "order" (
  id uuid PRIMARY KEY,
  short_id text NOT NULL UNIQUE,
  customer_id uuid NOT NULL,
  status order_status NOT NULL DEFAULT 'pending_payment',
  is_b2b boolean NOT NULL DEFAULT false,
  family_id uuid,
  buyer_tin text,
  admin_notes text,
  subtotal numeric(12, 2) NOT NULL CHECK (subtotal >= 0),
  discount_total numeric(12, 2) NOT NULL DEFAULT 0 CHECK (discount_total >= 0),
  shipping_total numeric(12, 2) NOT NULL DEFAULT 0 CHECK (shipping_total >= 0),
  total numeric(12, 2) NOT NULL CHECK (total >= 0),
  points_redeemed integer NOT NULL DEFAULT 0 CHECK (points_redeemed >= 0),
  points_earned integer NOT NULL DEFAULT 0 CHECK (points_earned >= 0),
  voucher_id uuid REFERENCES voucher (id),
  kol_code_id uuid REFERENCES kol_code (id),
  purchase_request_ids uuid[] NOT NULL DEFAULT '{}',
  idempotency_key text,
  request_hash text,
  ship_full_name text NOT NULL,
  ship_phone text NOT NULL,
  ship_address_line_1 text NOT NULL,
  ship_address_line_2 text,
  ship_city text NOT NULL,
  ship_postcode text NOT NULL,
  ship_state text NOT NULL,
  expires_at timestamptz(6) NOT NULL,
  paid_at timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  UNIQUE (customer_id, idempotency_key)
);
CREATE INDEX order_customer_id_created_at_idx ON "order" (customer_id, created_at);
CREATE INDEX order_status_expires_at_idx ON "order" (status, expires_at);

CREATE TABLE sub_order (
  id uuid PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES "order" (id) ON DELETE CASCADE,
  store_id uuid NOT NULL,
  status sub_order_status NOT NULL DEFAULT 'pending_payment',
  shipping_method_id uuid,
  subtotal numeric(12, 2) NOT NULL,
  discount numeric(12, 2) NOT NULL DEFAULT 0,
  shipping_fee numeric(12, 2) NOT NULL DEFAULT 0,
  total numeric(12, 2) NOT NULL,
  courier text,
  tracking_id text,
  tracking_url text,
  shipped_at timestamptz(6),
  delivered_at timestamptz(6),
  cancelled_at timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX sub_order_order_id_idx ON sub_order (order_id);
CREATE INDEX sub_order_store_id_created_at_idx ON sub_order (store_id, created_at);

CREATE TABLE order_item (
  id uuid PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES "order" (id) ON DELETE CASCADE,
  sub_order_id uuid NOT NULL REFERENCES sub_order (id) ON DELETE CASCADE,
  store_id uuid NOT NULL,
  product_id uuid NOT NULL,
  variant_id uuid,
  product_name text NOT NULL,
  variant_name text,
  unit_price numeric(12, 2) NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  line_total numeric(12, 2) NOT NULL,
  discount numeric(12, 2) NOT NULL DEFAULT 0,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX order_item_order_id_idx ON order_item (order_id);
CREATE INDEX order_item_sub_order_id_idx ON order_item (sub_order_id);

CREATE TABLE payment (
  id uuid PRIMARY KEY,
  order_id uuid NOT NULL UNIQUE REFERENCES "order" (id) ON DELETE CASCADE,
  status payment_status NOT NULL DEFAULT 'pending',
  amount numeric(12, 2) NOT NULL,
  currency text NOT NULL DEFAULT 'MYR',
  refunded_amount numeric(12, 2) NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
  transaction_id text,
  attempts integer NOT NULL DEFAULT 0,
  paid_at timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  CONSTRAINT payment_refund_within_amount CHECK (refunded_amount <= amount)
);

CREATE TABLE payment_notification (
  id uuid PRIMARY KEY,
  order_id uuid,
  transaction_id text NOT NULL,
  status text NOT NULL,
  verified boolean NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX payment_notification_order_id_idx ON payment_notification (order_id);

-- family accounts
CREATE TYPE membership_status AS ENUM ('pending', 'active', 'inactive');

CREATE TABLE family_account (
  id uuid PRIMARY KEY,
  owner_id uuid NOT NULL UNIQUE,
  name text NOT NULL,
  full_name text,
  phone text,
  address_line_1 text,
  address_line_2 text,
  city text,
  postcode text,
  state text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE family_member (
  id uuid PRIMARY KEY,
  family_id uuid NOT NULL REFERENCES family_account (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  email text NOT NULL,
  full_name text NOT NULL,
  status membership_status NOT NULL DEFAULT 'pending',
  must_change_password boolean NOT NULL DEFAULT true,
  invited_at timestamptz(6) NOT NULL DEFAULT now(),
  joined_at timestamptz(6),
  UNIQUE (family_id, user_id)
);
CREATE INDEX family_member_user_id_idx ON family_member (user_id);

CREATE TABLE family_cart_item (
  id uuid PRIMARY KEY,
  family_id uuid NOT NULL REFERENCES family_account (id) ON DELETE CASCADE,
  product_id uuid NOT NULL,
  variant_id uuid,
  quantity integer NOT NULL CHECK (quantity > 0 AND quantity <= 999),
  added_by uuid NOT NULL,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX family_cart_item_family_id_idx ON family_cart_item (family_id);
