-- An order paid while checkout had no user replica of its customer yet: its confirmation e-mail is
-- requested as soon as identity.user.upserted brings the replica (never skipped).
CREATE TABLE deferred_order_email (
  order_id uuid PRIMARY KEY REFERENCES "order" (id) ON DELETE CASCADE,
  customer_id uuid NOT NULL,
  request_id text,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX deferred_order_email_customer_id_idx ON deferred_order_email (customer_id);
