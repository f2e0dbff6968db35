/** What an advisory lock needs of a Prisma transaction client (any service's). */
export interface RawTx {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Prisma's own signature
  $executeRaw(query: TemplateStringsArray, ...values: any[]): PromiseLike<number>;
}

/**
 * A transaction-scoped advisory lock: writers of one key (`order:<id>`, a store's addresses, one
 * application) take turns until the transaction ends. Works where the row may not exist yet.
 */
export async function lockKey(tx: RawTx, key: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}
