-- Schema `identity` (the runner sets search_path to it): users, sessions, and the bus tables.
CREATE TYPE user_role AS ENUM ('customer', 'vendor', 'admin');

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  full_name text NOT NULL,
  phone text,
  role user_role NOT NULL DEFAULT 'customer',
  must_change_password boolean NOT NULL DEFAULT false,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (email);

CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  token_hash text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE ON UPDATE CASCADE,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  expires_at timestamptz(6) NOT NULL,
  last_seen_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX sessions_token_hash_key ON sessions (token_hash);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

-- The messaging tables (outbox, inbox, parked_message) that were here moved to packages/bus/migrations,
-- which the runner applies into this schema first; previous-checksums lets databases migrated before the move keep working.
