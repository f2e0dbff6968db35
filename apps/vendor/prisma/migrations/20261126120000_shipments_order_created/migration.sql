-- checkout.order.created → shipments, as SQL functions so that the created consumer's batch is one
-- statement (consumeWithInbox's claimAndHandle: one round trip and one commit, where BEGIN, the
-- inbox, the insert and COMMIT took four).
--
-- create_shipments: one shipment per sub-order of a store that exists here (the sub-order's id),
-- its items and the recipient address, for a JSON array of checkout.order.created data. A shipment
-- starts paid (cancelled) when the order's paid (closed) event was handled first, with the status
-- event the transition writes (enqueue_shipment_status_events);
-- paid wins over closed. Idempotent: rows keyed by checkout's ids. Answers the ids of the stores
-- that exist here among the orders' stores. The caller holds the orders' locks (`order:<id>`).
-- enqueue_shipment_status_events: the outbox rows of vendor.shipment.status_changed (what
-- transitionShipment enqueues, the envelope built as enqueueEvent builds it) for the shipments a
-- statement moved out of p_previous, given as a JSON array of shipment rows: one event per
-- shipment that is not pending_payment, in id order. Answers how many it enqueued. The one
-- definition of that event in SQL: create_shipments and the paid and closed handlers' statements
-- (shipments/events.ts) call it.
CREATE OR REPLACE FUNCTION enqueue_shipment_status_events(
  p_moved jsonb, p_previous text, p_changed_at timestamptz, p_occurred_at text, p_type text, p_version int, p_source text
) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  enqueued int;
BEGIN
  INSERT INTO outbox (id, type, payload, headers)
  SELECT e.event_id, p_type, jsonb_build_object('id', e.event_id, 'type', p_type, 'version', p_version, 'source', p_source,
    'occurredAt', p_occurred_at, 'data', jsonb_build_object(
      'shipmentId', e.id, 'orderId', e.order_id, 'storeId', e.store_id, 'status', e.status, 'previousStatus', p_previous,
      'courier', e.courier, 'trackingId', e.tracking_id, 'trackingUrl', e.tracking_url,
      'shippedAt', to_char(e.shipped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'deliveredAt', to_char(e.delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'cancelledAt', to_char(e.cancelled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'reason', e.cancel_reason, 'changedAt', to_char(p_changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))), '{}'
  FROM (SELECT gen_random_uuid() AS event_id, m.* FROM jsonb_populate_recordset(NULL::shipment, coalesce(p_moved, '[]')) m
        WHERE m.status <> 'pending_payment' ORDER BY m.id) AS e;
  GET DIAGNOSTICS enqueued = ROW_COUNT;
  RETURN enqueued;
END $$;

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

-- The created consumer's whole transaction: claims the batch (the bus's inbox_claim: the orders'
-- locks, then the inbox rows) and makes the shipments of the events that were new. p_events is the
-- batch as [{id, data}] in arrival order. create_shipments runs after the claim, in a statement of
-- its own, so it sees a paid or closed order whose handler committed while the claim waited for
-- the order's lock (the created and paid handlers commute).
CREATE OR REPLACE FUNCTION shipments_order_created(
  p_consumer text, p_event_ids uuid[], p_lock_keys text[], p_events jsonb,
  p_changed_at timestamptz, p_occurred_at text, p_type text, p_version int, p_source text
) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  fresh uuid[];
  orders jsonb;
BEGIN
  fresh := inbox_claim(p_consumer, p_event_ids, p_lock_keys);
  SELECT coalesce(jsonb_agg(e.event -> 'data' ORDER BY e.n), '[]') INTO orders
  FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(event, n)
  WHERE (e.event ->> 'id')::uuid = ANY (fresh);
  IF jsonb_array_length(orders) = 0 THEN
    RETURN '{}';
  END IF;
  RETURN create_shipments(orders, p_changed_at, p_occurred_at, p_type, p_version, p_source);
END $$;
