-- admin: first migration.
-- The messaging tables (outbox, inbox, parked_message) that were here moved to packages/bus/migrations,
-- which the runner applies into this schema first; previous-checksums lets databases migrated before the move keep working.
SELECT 1;
