-- The checkout.order.created consumer's whole transaction (one statement, consumeWithInbox's
-- claimAndHandle): claims the batch (the bus's inbox_claim: the orders' locks, then the inbox rows)
-- and makes the shipments of the events that were new. p_events is the batch as [{id, data}] in
-- arrival order. create_shipments runs after the claim, in a statement of its own, so it sees a paid
-- or closed order whose handler committed while the claim waited for the order's lock.
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
