/** What an advisory lock needs of a Prisma transaction client (any service's). */
export interface RawTx {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Prisma's own signature
  $executeRawUnsafe(query: string, ...values: any[]): PromiseLike<number>;
}

/** What an advisory lock needs of a plain pg client in a transaction (a pool client). */
export interface SqlQueryable {
  query(config: { name: string; text: string; values: unknown[] }): PromiseLike<unknown>;
}

/** The statement of `lockKey`: the key hashed to the 64-bit lock id, held until the transaction ends. */
export const LOCK_KEY_STATEMENT = { name: 'db-lock-key', text: 'SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))' };

/**
 * A transaction-scoped advisory lock: writers of one key (`order:<id>`, a store's addresses, one
 * application) take turns until the transaction ends. Works where the row may not exist yet. On a
 * plain pg client the statement is prepared by name.
 */
export async function lockKey(tx: RawTx | SqlQueryable, key: string): Promise<void> {
  if ('$executeRawUnsafe' in tx) await tx.$executeRawUnsafe(LOCK_KEY_STATEMENT.text, key);
  else await tx.query({ ...LOCK_KEY_STATEMENT, values: [key] });
}
