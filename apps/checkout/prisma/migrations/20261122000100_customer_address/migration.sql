-- Customer delivery addresses (SPEC "Customer address").
CREATE TABLE customer_address (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  customer_id uuid NOT NULL,
  label text NOT NULL,
  full_name text NOT NULL,
  phone text NOT NULL,
  address_line_1 text NOT NULL,
  address_line_2 text,
  city text NOT NULL,
  postcode text NOT NULL,
  state text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX "customer_address_customer_id_created_at_idx" ON customer_address (customer_id, created_at);
-- At most one default per customer, whatever the application does.
CREATE UNIQUE INDEX customer_address_one_default ON customer_address (customer_id) WHERE is_default;
