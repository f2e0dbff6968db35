const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * The SQLSTATE of a PostgreSQL error: a `pg` DatabaseError's `code`, or the original code Prisma's
 * driver adapter keeps (`meta.driverAdapterError.cause.originalCode`). Undefined for anything else
 * (a broken connection, a timeout, a bug).
 */
export function sqlStateOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const meta = (err as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } }).meta;
  const original = meta?.driverAdapterError?.cause?.originalCode;
  if (typeof original === 'string' && SQLSTATE.test(original)) return original;
  // a Prisma error's own code (P2002...) is not a SQLSTATE
  if ('clientVersion' in err) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && SQLSTATE.test(code) ? code : undefined;
}

/**
 * True for a unique-constraint violation (SQLSTATE 23505), however it reached us: a `pg` error
 * (plain SQL on the pool), a raw query through Prisma's driver adapter (P2010 keeping 23505), or
 * Prisma's own P2002 from a model query. The one check every service uses.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (sqlStateOf(err) === '23505') return true;
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}

/**
 * True when the error says the connection itself failed (SQLSTATE class 08, an administrator
 * shutdown, or no SQLSTATE at all: pg's "Connection terminated" and socket errors), so the
 * statement may or may not have committed and must not be retried blindly.
 */
export function isConnectionFailure(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state === undefined || state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03';
}

/**
 * True when the database is too busy to take the statement now: Prisma's P2024 (no connection
 * free in the pool in time) or P2028 (the transaction API gave up, e.g. "Unable to start a
 * transaction in the given time"). Nothing was written; the same request may be sent again.
 */
export function isDatabaseBusy(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === 'P2024' || code === 'P2028';
}
