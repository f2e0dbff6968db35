-- The order a B2B reservation placed (issue 24): written in the order's own transaction, so a
-- reservation places at most one order, and b2b can ask which (rpc.checkout.b2b_reservation_order)
-- before its sweep releases the reservation's purchase requests.
CREATE TABLE b2b_reservation (
  reservation_id UUID PRIMARY KEY,
  order_id UUID NOT NULL UNIQUE REFERENCES "order"(id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
