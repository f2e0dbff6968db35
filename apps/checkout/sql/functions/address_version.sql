-- The shipping address an order copies, as an md5 (the pricing cache's address is placed only while
-- its version is unchanged).
CREATE OR REPLACE FUNCTION address_version(a customer_address) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN md5(json_build_array(a.id, a.customer_id, a.full_name, a.phone, a.address_line_1, a.address_line_2, a.city, a.postcode, a.state)::text);
END $$;
