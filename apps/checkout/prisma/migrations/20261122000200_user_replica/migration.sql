-- Users as identity.user.upserted describes them; a row only moves forward in updated_at.
CREATE TABLE user_replica (
  user_id uuid PRIMARY KEY,
  email text NOT NULL,
  full_name text NOT NULL,
  phone text,
  role text NOT NULL,
  updated_at timestamptz(6) NOT NULL
);
