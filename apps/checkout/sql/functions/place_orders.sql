-- place_orders: the one order writer. Every submit (plain orders in batches through the order
-- batcher, and a batch of one inside the order transaction for family, B2B and orders with a
-- voucher, KOL code, points or TIN) writes its order's rows, takes its stock and resolves its
-- Idempotency-Key here. `batch` is a jsonb array of orders as orders/place-order.ts batchEntryOf
-- builds them ({order, subOrders, items, payment, outbox, expect?}). Per element, in order:
--   * an order whose idempotency_key an order of its customer already has is not placed:
--     {"outcome": "earlier", "orderId", "requestHash"};
--   * an element with "expect": {"address": {"id", "version"}, "products": [{"id", "version"}]}
--     (priced from the pricing cache) is placed only while the address and every product still
--     have those versions (address_version, catalog_version); otherwise {"outcome": "stale"};
--   * the stock rows of the others are locked once (products, then variants, each in id order) and
--     allocated in arrival order: {"outcome": "placed"}, or {"outcome": "insufficient_stock"} for
--     an order that does not fit (it takes nothing; a later smaller one may fit).
-- Then the placed orders' rows are inserted, their outbox rows in arrival order. Nothing of an
-- element that is not placed is written. Answers the outcomes as a jsonb array in the batch's order.
CREATE OR REPLACE FUNCTION place_orders(batch jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  n_entries int := jsonb_array_length(batch);
  outcomes jsonb[] := array_fill(NULL::jsonb, ARRAY[n_entries]);
  candidate boolean[] := array_fill(true, ARRAY[n_entries]);
  placed boolean[] := array_fill(false, ARRAY[n_entries]);
  left_units jsonb;
  taken jsonb := '{}';
  any_placed boolean := false;
  items jsonb;
  entry jsonb;
  item jsonb;
  expected jsonb;
  row_key text;
  fits boolean;
  earlier_orders jsonb;
  address_versions jsonb;
  product_versions jsonb;
BEGIN
  -- what the checks compare with, one look-up each for the whole batch: the earlier orders of the
  -- elements' keys (by element), the versions of the addresses (by id and customer) and of the
  -- products (by id) the elements were priced from
  SELECT coalesce(jsonb_object_agg(b.n, jsonb_build_object('outcome', 'earlier', 'orderId', o.id, 'requestHash', o.request_hash)), '{}')
  INTO earlier_orders
  FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n),
    LATERAL (SELECT o.id, o.request_hash FROM "order" o
             WHERE o.customer_id = (b.e -> 'order' ->> 'customer_id')::uuid AND o.idempotency_key = b.e -> 'order' ->> 'idempotency_key' LIMIT 1) o
  WHERE b.e -> 'order' ->> 'idempotency_key' IS NOT NULL;
  SELECT coalesce(jsonb_object_agg(a.id::text || '/' || a.customer_id::text, address_version(a)), '{}') INTO address_versions
  FROM customer_address a
  WHERE a.id = ANY (ARRAY(SELECT (b.e -> 'expect' -> 'address' ->> 'id')::uuid FROM jsonb_array_elements(batch) AS b(e) WHERE b.e ? 'expect'));
  SELECT coalesce(jsonb_object_agg(p.id::text, catalog_version(p)), '{}') INTO product_versions
  FROM product p
  WHERE p.id = ANY (ARRAY(SELECT DISTINCT (i ->> 'id')::uuid FROM jsonb_array_elements(batch) AS b(e), jsonb_array_elements(b.e -> 'expect' -> 'products') i
                          WHERE b.e ? 'expect'));

  FOR n IN 1 .. n_entries LOOP
    IF earlier_orders ? n::text THEN
      outcomes[n] := earlier_orders -> n::text;
      candidate[n] := false;
      CONTINUE;
    END IF;
    entry := batch -> (n - 1);
    expected := entry -> 'expect';
    CONTINUE WHEN expected IS NULL;
    IF address_versions ->> ((expected -> 'address' ->> 'id')::uuid::text || '/' || (entry -> 'order' ->> 'customer_id')::uuid::text)
       IS DISTINCT FROM expected -> 'address' ->> 'version' THEN
      candidate[n] := false;
    ELSE
      FOR i IN 0 .. jsonb_array_length(expected -> 'products') - 1 LOOP
        item := expected -> 'products' -> i;
        IF product_versions ->> (item ->> 'id')::uuid::text IS DISTINCT FROM item ->> 'version' THEN
          candidate[n] := false;
        END IF;
      END LOOP;
    END IF;
    IF NOT candidate[n] THEN
      outcomes[n] := '{"outcome": "stale"}';
    END IF;
  END LOOP;

  -- stock rows of the candidates: products (lines without a variant), then variants, each in id order
  SELECT coalesce(jsonb_object_agg('p' || locked.id, locked.stock), '{}') INTO left_units FROM (
    SELECT p.id, p.stock FROM product p
    WHERE p.id IN (SELECT (i ->> 'product_id')::uuid FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(o, n), jsonb_array_elements(o -> 'items') i
                   WHERE candidate[n] AND i ->> 'variant_id' IS NULL)
    ORDER BY p.id FOR NO KEY UPDATE) locked;
  SELECT left_units || coalesce(jsonb_object_agg('v' || locked.id, locked.stock), '{}') INTO left_units FROM (
    SELECT v.id, v.stock FROM product_variant v
    WHERE v.id IN (SELECT (i ->> 'variant_id')::uuid FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(o, n), jsonb_array_elements(o -> 'items') i
                   WHERE candidate[n] AND i ->> 'variant_id' IS NOT NULL)
    ORDER BY v.id FOR NO KEY UPDATE) locked;

  -- allocated in arrival order: an order that does not fit takes nothing, a later smaller one may fit
  FOR n IN 1 .. n_entries LOOP
    CONTINUE WHEN NOT candidate[n];
    items := batch -> (n - 1) -> 'items';
    fits := true;
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
      placed[n] := true;
      outcomes[n] := '{"outcome": "placed"}';
    ELSE
      outcomes[n] := '{"outcome": "insufficient_stock"}';
    END IF;
  END LOOP;

  IF NOT any_placed THEN
    RETURN to_jsonb(outcomes);
  END IF;

  UPDATE product p SET stock = p.stock - t.value::int
  FROM jsonb_each_text(taken) t WHERE left(t.key, 1) = 'p' AND p.id = substr(t.key, 2)::uuid;
  UPDATE product_variant v SET stock = v.stock - t.value::int
  FROM jsonb_each_text(taken) t WHERE left(t.key, 1) = 'v' AND v.id = substr(t.key, 2)::uuid;

  INSERT INTO "order" (id, short_id, customer_id, is_b2b, family_id, buyer_tin, company_id, admin_notes, subtotal, discount_total, shipping_total, total,
    points_redeemed, points_earned, voucher_id, kol_code_id, purchase_request_ids, idempotency_key, request_hash, ship_full_name, ship_phone,
    ship_address_line_1, ship_address_line_2, ship_city, ship_postcode, ship_state, expires_at, created_at, updated_at)
  SELECT r.id, r.short_id, r.customer_id, r.is_b2b, r.family_id, r.buyer_tin, r.company_id, r.admin_notes, r.subtotal, r.discount_total, r.shipping_total, r.total,
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
  INSERT INTO outbox (id, type, payload, headers, aggregate)
  SELECT (e -> 'outbox' ->> 'id')::uuid, e -> 'outbox' ->> 'type', e -> 'outbox' -> 'payload', e -> 'outbox' -> 'headers', e -> 'outbox' ->> 'aggregate'
  FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(e, n) WHERE placed[n] ORDER BY n;

  RETURN to_jsonb(outcomes);
END $$;
