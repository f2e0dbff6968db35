-- place_order_batch was kept for the instances of the version before place_orders during a
-- rolling deploy. Every submit (plain, family, B2B) now writes its order through place_orders,
-- and no running version calls place_order_batch any more.
DROP FUNCTION IF EXISTS place_order_batch(jsonb);
