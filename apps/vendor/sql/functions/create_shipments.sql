-- One shipment per sub-order of a store that exists here (the sub-order's id), its items and the
-- recipient address, for a JSON array of checkout.order.created data. A shipment starts paid
-- (cancelled) when the order's paid (closed) event was handled first, with the status event the
-- transition writes (enqueue_shipment_status_events); paid wins over closed. Idempotent: rows keyed
-- by checkout's ids. Answers the ids of the stores that exist here among the orders' stores. The
-- caller holds the orders' locks (`order:<id>`).
CREATE OR REPLACE FUNCTION create_shipments(
  p_orders jsonb, p_changed_at timestamptz, p_occurred_at text, p_type text, p_version int, p_source text
) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  known_stores text[];
  moved_rows jsonb;
BEGIN
  WITH orders AS (
    SELECT o."orderId", o."shortId", o."customerId", o."createdAt", o."subOrders", a.*
    FROM jsonb_to_recordset(p_orders) AS o("orderId" uuid, "shortId" text, "customerId" uuid, "createdAt" timestamptz, "shippingAddress" jsonb, "subOrders" jsonb)
      CROSS JOIN LATERAL jsonb_to_record(o."shippingAddress")
        AS a("fullName" text, phone text, "addressLine1" text, "addressLine2" text, city text, postcode text, state text)
  ), known AS (
    SELECT orders.*, s."subOrderId", s."storeId", s."shippingMethodId", s.subtotal, s."shippingFee", s.total, s.items
    FROM orders
      CROSS JOIN LATERAL jsonb_to_recordset(orders."subOrders")
        AS s("subOrderId" uuid, "storeId" uuid, "shippingMethodId" uuid, subtotal numeric, "shippingFee" numeric, total numeric, items jsonb)
    WHERE EXISTS (SELECT 1 FROM store WHERE store.id = s."storeId")
  ), moved AS (
    INSERT INTO shipment (id, order_id, short_id, store_id, customer_id, shipping_method_id, subtotal, shipping_fee, total,
      recipient_name, recipient_phone, address_line_1, address_line_2, city, postcode, state, created_at,
      status, paid_at, cancelled_at, cancel_reason, updated_at)
    SELECT k."subOrderId", k."orderId", k."shortId", k."storeId", k."customerId", k."shippingMethodId", k.subtotal, k."shippingFee", k.total,
      k."fullName", k.phone, k."addressLine1", k."addressLine2", k.city, k.postcode, k.state, k."createdAt",
      CASE WHEN paid.paid_at IS NOT NULL THEN 'paid' WHEN closed.status IS NOT NULL THEN 'cancelled' ELSE 'pending_payment' END::shipment_status,
      paid.paid_at,
      CASE WHEN paid.paid_at IS NULL THEN closed.closed_at END,
      CASE WHEN paid.paid_at IS NULL AND closed.status IS NOT NULL THEN 'order ' || closed.status END,
      CASE WHEN paid.paid_at IS NOT NULL OR closed.status IS NOT NULL THEN p_changed_at ELSE now() END
    FROM known k
      LEFT JOIN paid_order paid ON paid.order_id = k."orderId"
      LEFT JOIN closed_order closed ON closed.order_id = k."orderId"
    ON CONFLICT (id) DO NOTHING
    RETURNING *
  ), shipment_items AS (
    INSERT INTO shipment_item (id, shipment_id, product_id, variant_id, product_name, variant_name, quantity, unit_price, weight_kg)
    SELECT i."orderItemId", k."subOrderId", i."productId", i."variantId", i."productName", i."variantName", i.quantity, i."unitPrice", i."weightKg"
    FROM known k
      CROSS JOIN LATERAL jsonb_to_recordset(k.items)
        AS i("orderItemId" uuid, "productId" uuid, "variantId" uuid, "productName" text, "variantName" text, quantity int, "unitPrice" numeric, "weightKg" numeric)
    ON CONFLICT (id) DO NOTHING
  )
  SELECT coalesce(array_agg(DISTINCT "storeId"::text), '{}'), (SELECT jsonb_agg(to_jsonb(m)) FROM moved m) INTO known_stores, moved_rows FROM known;
  PERFORM enqueue_shipment_status_events(moved_rows, 'pending_payment', p_changed_at, p_occurred_at, p_type, p_version, p_source);
  RETURN known_stores;
END $$;
