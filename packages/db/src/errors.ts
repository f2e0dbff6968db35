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
 * True when the error says the connection itself failed (SQLSTATE class 08, an administrator
 * shutdown, or no SQLSTATE at all: pg's "Connection terminated" and socket errors), so the
 * statement may or may not have committed and must not be retried blindly.
 */
export function isConnectionFailure(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state === undefined || state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03';
}
