-- Team invites (issue 24): every invite a company sends, whatever the e-mail turned out to be, so
-- that B2B_INVITES_PER_DAY caps them per company over the last 24 hours.
CREATE TABLE team_invite (
  id UUID PRIMARY KEY,
  company_id UUID NOT NULL REFERENCES company(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX team_invite_company_id_created_at_idx ON team_invite (company_id, created_at);
