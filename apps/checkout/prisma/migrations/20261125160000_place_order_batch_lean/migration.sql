-- place_order_batch as before (20261125090000_place_order_batch says what it does), with less work
-- per order inside PostgreSQL: the inserts read the placed elements of the batch where they are
-- (`WHERE placed[n]`) instead of copying each into a growing jsonb array (a copy of all the
-- accepted orders per order), and the item loops step through the items' array instead of running
-- a query per loop.
CREATE OR REPLACE FUNCTION place_order_batch(batch jsonb) RETURNS boolean[]
LANGUAGE plpgsql AS $$
DECLARE
  left_units jsonb;
  taken jsonb := '{}';
  placed boolean[] := '{}';
  any_placed boolean := false;
  items jsonb;
  entry jsonb;
  item jsonb;
  row_key text;
  fits boolean;
BEGIN
  SELECT coalesce(jsonb_object_agg('p' || locked.id, locked.stock), '{}') INTO left_units FROM (
    SELECT p.id, p.stock FROM product p
    WHERE p.id IN (SELECT (i ->> 'product_id')::uuid FROM jsonb_array_elements(batch) o, jsonb_array_elements(o -> 'items') i
                   WHERE i ->> 'variant_id' IS NULL)
    ORDER BY p.id FOR NO KEY UPDATE) locked;
  SELECT left_units || coalesce(jsonb_object_agg('v' || locked.id, locked.stock), '{}') INTO left_units FROM (
    SELECT v.id, v.stock FROM product_variant v
    WHERE v.id IN (SELECT (i ->> 'variant_id')::uuid FROM jsonb_array_elements(batch) o, jsonb_array_elements(o -> 'items') i
                   WHERE i ->> 'variant_id' IS NOT NULL)
    ORDER BY v.id FOR NO KEY UPDATE) locked;

  FOR entry IN SELECT e FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n) ORDER BY n LOOP
    fits := true;
    items := entry -> 'items';
    FOR i IN 0 .. jsonb_array_length(items) - 1 LOOP
      item := items -> i;
      row_key := CASE WHEN item ->> 'variant_id' IS NULL THEN 'p' || (item ->> 'product_id') ELSE 'v' || (item ->> 'variant_id') END;
      IF coalesce((left_units ->> row_key)::int, 0) < (item ->> 'quantity')::int THEN
        fits := false;
      END IF;
    END LOOP;
    IF fits THEN
      FOR i IN 0 .. jsonb_array_length(items) - 1 LOOP
        item := items -> i;
        row_key := CASE WHEN item ->> 'variant_id' IS NULL THEN 'p' || (item ->> 'product_id') ELSE 'v' || (item ->> 'variant_id') END;
        left_units := jsonb_set(left_units, ARRAY[row_key], to_jsonb((left_units ->> row_key)::int - (item ->> 'quantity')::int));
        taken := jsonb_set(taken, ARRAY[row_key], to_jsonb(coalesce((taken ->> row_key)::int, 0) + (item ->> 'quantity')::int));
      END LOOP;
      any_placed := true;
    END IF;
    placed := placed || fits;
  END LOOP;

  IF NOT any_placed THEN
    RETURN placed;
  END IF;

  UPDATE product p SET stock = p.stock - t.value::int
  FROM jsonb_each_text(taken) t WHERE left(t.key, 1) = 'p' AND p.id = substr(t.key, 2)::uuid;
  UPDATE product_variant v SET stock = v.stock - t.value::int
  FROM jsonb_each_text(taken) t WHERE left(t.key, 1) = 'v' AND v.id = substr(t.key, 2)::uuid;

  INSERT INTO "order" (id, short_id, customer_id, is_b2b, family_id, buyer_tin, admin_notes, subtotal, discount_total, shipping_total, total,
    points_redeemed, points_earned, voucher_id, kol_code_id, purchase_request_ids, idempotency_key, request_hash, ship_full_name, ship_phone,
    ship_address_line_1, ship_address_line_2, ship_city, ship_postcode, ship_state, expires_at, created_at, updated_at)
  SELECT r.id, r.short_id, r.customer_id, r.is_b2b, r.family_id, r.buyer_tin, r.admin_notes, r.subtotal, r.discount_total, r.shipping_total, r.total,
    r.points_redeemed, 0, r.voucher_id, r.kol_code_id, r.purchase_request_ids, r.idempotency_key, r.request_hash, r.ship_full_name, r.ship_phone,
    r.ship_address_line_1, r.ship_address_line_2, r.ship_city, r.ship_postcode, r.ship_state, r.expires_at, r.created_at, r.updated_at
  FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n), jsonb_populate_record(NULL::"order", e -> 'order') r WHERE placed[n];

  INSERT INTO sub_order (id, order_id, store_id, shipping_method_id, subtotal, discount, shipping_fee, total, created_at, updated_at)
  SELECT r.id, r.order_id, r.store_id, r.shipping_method_id, r.subtotal, r.discount, r.shipping_fee, r.total, r.created_at, r.updated_at
  FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n), jsonb_array_elements(e -> 'subOrders') s, jsonb_populate_record(NULL::sub_order, s) r WHERE placed[n];

  INSERT INTO order_item (id, order_id, sub_order_id, store_id, product_id, variant_id, product_name, variant_name, unit_price, quantity,
    line_total, discount, created_at)
  SELECT r.id, r.order_id, r.sub_order_id, r.store_id, r.product_id, r.variant_id, r.product_name, r.variant_name, r.unit_price, r.quantity,
    r.line_total, r.discount, r.created_at
  FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n), jsonb_array_elements(e -> 'items') i, jsonb_populate_record(NULL::order_item, i) r WHERE placed[n];

  INSERT INTO payment (id, order_id, amount, created_at, updated_at)
  SELECT r.id, r.order_id, r.amount, r.created_at, r.updated_at
  FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n), jsonb_populate_record(NULL::payment, e -> 'payment') r WHERE placed[n];

  -- in arrival order: the relay publishes by seq
  INSERT INTO outbox (id, type, payload, headers)
  SELECT (e -> 'outbox' ->> 'id')::uuid, e -> 'outbox' ->> 'type', e -> 'outbox' -> 'payload', e -> 'outbox' -> 'headers'
  FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n) WHERE placed[n] ORDER BY n;

  RETURN placed;
END $$;
