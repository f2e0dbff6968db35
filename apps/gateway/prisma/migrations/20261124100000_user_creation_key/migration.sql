-- rpc.identity.create_user idempotencyKey: the caller's key for the creation of this user
ALTER TABLE users ADD COLUMN creation_key text;
CREATE UNIQUE INDEX users_creation_key_key ON users (creation_key);
