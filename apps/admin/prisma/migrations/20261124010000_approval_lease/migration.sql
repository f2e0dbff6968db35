-- A running approval leases its application: a second approve or a reject meanwhile answers 409.
ALTER TABLE vendor_application ADD COLUMN approving_until timestamptz(6);
