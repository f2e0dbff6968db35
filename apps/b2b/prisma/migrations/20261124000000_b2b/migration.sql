-- Companies, members, purchase requests and the B2B order read model (issue 10).

CREATE TABLE user_replica (
  user_id uuid PRIMARY KEY,
  email text NOT NULL,
  full_name text NOT NULL,
  updated_at timestamptz(6) NOT NULL
);

CREATE TYPE company_status AS ENUM ('pending', 'approved', 'rejected');

CREATE TABLE company (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  ssm_number text NOT NULL,
  industry text NOT NULL,
  address_line1 text NOT NULL,
  city text NOT NULL,
  state text NOT NULL,
  postcode text NOT NULL,
  contact_name text NOT NULL,
  contact_phone text NOT NULL,
  contact_email text NOT NULL,
  owner_id uuid NOT NULL,
  status company_status NOT NULL DEFAULT 'pending',
  rejection_reason text,
  reviewed_by uuid,
  reviewed_at timestamptz(6),
  ssm_cert_path text,
  tin text,
  msic_code text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX company_status_created_at_idx ON company (status, created_at);
CREATE INDEX company_owner_id_idx ON company (owner_id);

CREATE TYPE b2b_role AS ENUM ('company_admin', 'approver', 'finance', 'staff');
CREATE TYPE membership_status AS ENUM ('pending', 'active', 'inactive');

CREATE TABLE company_member (
  id uuid PRIMARY KEY,
  company_id uuid NOT NULL REFERENCES company (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  b2b_role b2b_role NOT NULL,
  status membership_status NOT NULL,
  must_change_password boolean NOT NULL DEFAULT false,
  joined_at timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX company_member_company_id_user_id_key ON company_member (company_id, user_id);
CREATE INDEX company_member_user_id_idx ON company_member (user_id);

CREATE TYPE purchase_request_status AS ENUM ('pending', 'approved', 'rejected', 'checkout_pending', 'paid', 'cancelled');

CREATE TABLE purchase_request (
  id uuid PRIMARY KEY,
  company_id uuid NOT NULL REFERENCES company (id) ON DELETE CASCADE,
  requester_id uuid NOT NULL,
  product_id uuid NOT NULL,
  variant_id uuid,
  product_name text NOT NULL,
  product_image text,
  variant_name text,
  store_id uuid NOT NULL,
  store_name text,
  weight_kg numeric(10, 3),
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price numeric(12, 2) NOT NULL,
  note text,
  status purchase_request_status NOT NULL DEFAULT 'pending',
  review_note text,
  reviewer_id uuid,
  reviewed_at timestamptz(6),
  reservation_id uuid,
  reserved_at timestamptz(6),
  order_id uuid,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX purchase_request_company_id_created_at_idx ON purchase_request (company_id, created_at);
CREATE INDEX purchase_request_company_id_status_idx ON purchase_request (company_id, status);
CREATE INDEX purchase_request_reservation_id_idx ON purchase_request (reservation_id);
CREATE INDEX purchase_request_order_id_idx ON purchase_request (order_id);

CREATE TABLE b2b_order (
  order_id uuid PRIMARY KEY,
  company_id uuid,
  short_id text,
  customer_id uuid,
  status text NOT NULL,
  total numeric(12, 2),
  sub_order_count integer,
  paid_at timestamptz(6),
  created_at timestamptz(6),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX b2b_order_company_id_created_at_idx ON b2b_order (company_id, created_at);
