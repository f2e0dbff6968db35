-- Customer account features (issue 5): wishlist, followed stores, returns (DESIGN §5, §7).

-- wishlist: one row per (customer, product); the product's deletion removes it
CREATE TABLE wishlist_item (
  customer_id uuid NOT NULL,
  product_id uuid NOT NULL REFERENCES product (id) ON DELETE CASCADE,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, product_id)
);
CREATE INDEX wishlist_item_customer_id_created_at_idx ON wishlist_item (customer_id, created_at);

-- followed stores: one row per (customer, store) of the store replica
CREATE TABLE store_follow (
  customer_id uuid NOT NULL,
  store_id uuid NOT NULL REFERENCES store_replica (store_id) ON DELETE CASCADE,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, store_id)
);
CREATE INDEX store_follow_customer_id_created_at_idx ON store_follow (customer_id, created_at);

-- returns: requested -> approved | rejected -> received -> refunded
CREATE TYPE return_status AS ENUM ('requested', 'approved', 'rejected', 'received', 'refunded');
CREATE TYPE return_reason AS ENUM ('wrong_item', 'damaged', 'defective', 'not_as_described', 'missing_parts', 'changed_mind', 'other');

CREATE TABLE return_request (
  id uuid PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES "order" (id) ON DELETE CASCADE,
  sub_order_id uuid NOT NULL REFERENCES sub_order (id) ON DELETE CASCADE,
  customer_id uuid NOT NULL,
  store_id uuid NOT NULL,
  status return_status NOT NULL DEFAULT 'requested',
  reason return_reason NOT NULL,
  comment text,
  evidence_paths text[] NOT NULL DEFAULT '{}',
  rejection_reason text,
  refund_amount numeric(12, 2) CHECK (refund_amount >= 0),
  vendor_reviewed_at timestamptz(6),
  received_at timestamptz(6),
  refunded_at timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  CONSTRAINT return_request_evidence_limit CHECK (cardinality(evidence_paths) <= 10),
  CONSTRAINT return_request_rejection_reason CHECK ((status = 'rejected') = (rejection_reason IS NOT NULL)),
  CONSTRAINT return_request_refund CHECK ((status = 'refunded') = (refunded_at IS NOT NULL AND refund_amount IS NOT NULL))
);
CREATE INDEX return_request_customer_id_created_at_idx ON return_request (customer_id, created_at);
CREATE INDEX return_request_store_id_created_at_idx ON return_request (store_id, created_at);
CREATE INDEX return_request_order_id_idx ON return_request (order_id);

-- the items of a return; `active` turns false when the return is rejected (the item may then be
-- returned again). One active return per order item, whatever the application does.
CREATE TABLE return_item (
  return_id uuid NOT NULL REFERENCES return_request (id) ON DELETE CASCADE,
  order_item_id uuid NOT NULL REFERENCES order_item (id) ON DELETE CASCADE,
  product_name text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  PRIMARY KEY (return_id, order_item_id)
);
CREATE UNIQUE INDEX return_item_one_active ON return_item (order_item_id) WHERE active;
