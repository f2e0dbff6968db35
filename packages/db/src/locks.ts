/** A Prisma client or transaction client (any service's), as far as raw SQL goes. */
export interface RawTx {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** A plain pg client (a pool client inside a transaction): statements prepared by name. */
export interface SqlTx {
  query<R = Record<string, unknown>>(statement: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: R[]; rowCount: number | null }>;
}

/**
 * Runs a named statement on either kind of transaction and answers its rows: on a plain pg client
 * it is prepared by name (once per connection), on Prisma its text runs with the same values.
 */
export async function runStatement<R extends object>(tx: RawTx | SqlTx, statement: { name: string; text: string }, values: unknown[]): Promise<R[]> {
  if ('$queryRawUnsafe' in tx) return tx.$queryRawUnsafe<R[]>(statement.text, ...values);
  return (await tx.query<R>({ ...statement, values })).rows;
}

/** The statement of `lockKey`: the key hashed to the 64-bit lock id, held until the transaction ends. */
const LOCK_KEY = { name: 'db-lock-key', text: 'SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtextextended($1::text, 0))' };

/**
 * A transaction-scoped advisory lock: writers of one key (`order:<id>`, a store's addresses, one
 * application) take turns until the transaction ends. Works where the row may not exist yet.
 */
export async function lockKey(tx: RawTx | SqlTx, key: string): Promise<void> {
  await runStatement(tx, LOCK_KEY, [key]);
}
