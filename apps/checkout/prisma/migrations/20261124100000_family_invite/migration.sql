-- Every family invite the owner sends (accepted or refused): the per-family daily cap counts them.
CREATE TABLE family_invite (
  id uuid PRIMARY KEY,
  family_id uuid NOT NULL REFERENCES family_account (id) ON DELETE CASCADE,
  email text NOT NULL,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX family_invite_family_id_created_at_idx ON family_invite (family_id, created_at);
