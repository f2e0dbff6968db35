import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_TEST_DATABASE_URL } from './testing';
import { lockKey } from './locks';

/** Whether another session could take the key's lock now (it cannot while a transaction holds it). */
async function freeFor(other: pg.Client, key: string): Promise<boolean> {
  await other.query('BEGIN');
  try {
    const { rows } = await other.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1::text, 0)) AS ok', [key]);
    return rows[0].ok;
  } finally {
    await other.query('ROLLBACK');
  }
}

test('lockKey on a plain pg client holds the key until the transaction ends, for that key only', async () => {
  const holder = new pg.Client({ connectionString: DEFAULT_TEST_DATABASE_URL });
  const other = new pg.Client({ connectionString: DEFAULT_TEST_DATABASE_URL });
  await Promise.all([holder.connect(), other.connect()]);
  const key = `order:${randomUUID()}`;
  try {
    await holder.query('BEGIN');
    await lockKey(holder, key);
    await lockKey(holder, key); // the holder may take it again (an inbox batch locked it first)
    expect(await freeFor(other, key)).toBe(false);
    expect(await freeFor(other, `order:${randomUUID()}`)).toBe(true);
    await holder.query('COMMIT');
    expect(await freeFor(other, key)).toBe(true);
  } finally {
    await Promise.all([holder.end(), other.end()]);
  }
});
