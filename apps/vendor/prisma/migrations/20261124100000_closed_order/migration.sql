-- Orders checkout closed unpaid (checkout.order.status_changed to expired, payment_failed or
-- cancelled): their pending_payment shipments are cancelled, and an order.created handled later
-- starts its shipments cancelled.
CREATE TABLE closed_order (
  order_id uuid PRIMARY KEY,
  status text NOT NULL,
  closed_at timestamptz(6) NOT NULL,
  received_at timestamptz(6) NOT NULL DEFAULT now()
);
