-- Group commit of plain orders (one line or more; no voucher, points, KOL code or TIN to save):
-- the checkout order batcher sends the orders that queued while its previous call ran, in arrival
-- order, as one jsonb array, and this function places them in one round trip and one transaction.
--
-- Each element: { "order": <"order" columns>, "subOrders": [<sub_order columns>], "items":
-- [<order_item columns>], "payment": <payment columns>, "outbox": <outbox id, type, payload,
-- headers> } (snake_case column names; the outbox row is the one enqueueEvent builds).
-- The answer: per element, in the same order, true when placed, false when its stock was short.
--
-- The stock rows of the whole batch are locked first, product rows (lines without a variant) then
-- variant rows, each in id order: the order submit's transactional path and the expiry release
-- take them in, so nothing deadlocks. Stock is allocated in arrival order: an order that does not
-- fit is refused (nothing of it written) and a later, smaller one may still fit. Any error (a
-- unique key, a constraint) rolls the whole batch back: the caller then places the orders one by one.
CREATE FUNCTION place_order_batch(batch jsonb) RETURNS boolean[]
LANGUAGE plpgsql AS $$
DECLARE
  left_units jsonb;
  taken jsonb := '{}';
  placed boolean[] := '{}';
  accepted jsonb := '[]';
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
    FOR item IN SELECT jsonb_array_elements(entry -> 'items') LOOP
      row_key := CASE WHEN item ->> 'variant_id' IS NULL THEN 'p' || (item ->> 'product_id') ELSE 'v' || (item ->> 'variant_id') END;
      IF coalesce((left_units ->> row_key)::int, 0) < (item ->> 'quantity')::int THEN
        fits := false;
      END IF;
    END LOOP;
    IF fits THEN
      FOR item IN SELECT jsonb_array_elements(entry -> 'items') LOOP
        row_key := CASE WHEN item ->> 'variant_id' IS NULL THEN 'p' || (item ->> 'product_id') ELSE 'v' || (item ->> 'variant_id') END;
        left_units := jsonb_set(left_units, ARRAY[row_key], to_jsonb((left_units ->> row_key)::int - (item ->> 'quantity')::int));
        taken := jsonb_set(taken, ARRAY[row_key], to_jsonb(coalesce((taken ->> row_key)::int, 0) + (item ->> 'quantity')::int));
      END LOOP;
      accepted := accepted || jsonb_build_array(entry);
    END IF;
    placed := placed || fits;
  END LOOP;

  IF jsonb_array_length(accepted) = 0 THEN
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
  FROM jsonb_array_elements(accepted) e, jsonb_populate_record(NULL::"order", e -> 'order') r;

  INSERT INTO sub_order (id, order_id, store_id, shipping_method_id, subtotal, discount, shipping_fee, total, created_at, updated_at)
  SELECT r.id, r.order_id, r.store_id, r.shipping_method_id, r.subtotal, r.discount, r.shipping_fee, r.total, r.created_at, r.updated_at
  FROM jsonb_array_elements(accepted) e, jsonb_array_elements(e -> 'subOrders') s, jsonb_populate_record(NULL::sub_order, s) r;

  INSERT INTO order_item (id, order_id, sub_order_id, store_id, product_id, variant_id, product_name, variant_name, unit_price, quantity,
    line_total, discount, created_at)
  SELECT r.id, r.order_id, r.sub_order_id, r.store_id, r.product_id, r.variant_id, r.product_name, r.variant_name, r.unit_price, r.quantity,
    r.line_total, r.discount, r.created_at
  FROM jsonb_array_elements(accepted) e, jsonb_array_elements(e -> 'items') i, jsonb_populate_record(NULL::order_item, i) r;

  INSERT INTO payment (id, order_id, amount, created_at, updated_at)
  SELECT r.id, r.order_id, r.amount, r.created_at, r.updated_at
  FROM jsonb_array_elements(accepted) e, jsonb_populate_record(NULL::payment, e -> 'payment') r;

  -- in arrival order: the relay publishes by seq
  INSERT INTO outbox (id, type, payload, headers)
  SELECT (e -> 'outbox' ->> 'id')::uuid, e -> 'outbox' ->> 'type', e -> 'outbox' -> 'payload', e -> 'outbox' -> 'headers'
  FROM jsonb_array_elements(accepted) WITH ORDINALITY AS a(e, n) ORDER BY n;

  RETURN placed;
END $$;
