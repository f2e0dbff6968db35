-- What an order's price and shipping are computed from, of one product, as an md5: its own fields,
-- its variants' names and prices, its store's shipping methods; stock left out (place_orders checks
-- stock itself). Must track CATALOG_ROW_JSON (orders/place-order.ts): catalog-version.test.ts
-- changes each field pricing reads and fails when one leaves the version alone. plpgsql, whose plans
-- are kept for the session (a SQL function is planned again at each execution of its statement).
CREATE OR REPLACE FUNCTION catalog_version(p product) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN md5(json_build_array(p.id, p.store_id, p.category_id, p.name, p.status::text, p.base_price::text, p.weight_kg::text,
    p.length_cm::text, p.width_cm::text, p.height_cm::text,
    (SELECT json_agg(json_build_array(v.id, v.name, v.price_override::text) ORDER BY v.id) FROM product_variant v WHERE v.product_id = p.id),
    (SELECT json_agg(json_build_array(m.id, m.type, m.rate_config, m.is_active) ORDER BY m.id) FROM shipping_method_replica m WHERE m.store_id = p.store_id)
  )::text);
END $$;
