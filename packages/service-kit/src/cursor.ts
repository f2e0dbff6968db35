import { badRequest } from './problems';

/** A keyset page position: the last row's time and id (pages ordered by (time, id), newest first). */
export interface TimeCursor {
  at: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The opaque `nextCursor` of a page whose last row is `last`. */
export function encodeTimeCursor(last: TimeCursor): string {
  return Buffer.from(`${last.at.toISOString()}|${last.id}`).toString('base64url');
}

/** The position `encodeTimeCursor` wrote; anything else is a 400 `invalid_cursor`. */
export function decodeTimeCursor(cursor: string): TimeCursor {
  const [time, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const at = new Date(time ?? '');
  if (extra !== undefined || !id || !UUID.test(id) || !/^\d{4}-\d\d-\d\dT/.test(time) || Number.isNaN(at.getTime())) {
    throw badRequest('invalid_cursor', 'the cursor is not one this API answered');
  }
  return { at, id };
}

/**
 * The rows after `cursor` in a (createdAt, id) newest-first order, as a where-clause fragment
 * (Prisma's shape): `{}` on the first page. A cursor this API did not answer is a 400.
 */
export function afterTimeCursor(cursor: string | undefined): { OR?: [{ createdAt: { lt: Date } }, { createdAt: Date; id: { lt: string } }] } {
  if (!cursor) return {};
  const after = decodeTimeCursor(cursor);
  return { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] };
}

/** A page of at most `limit` of `rows` (read with `take: limit + 1`), and the cursor of the next one (null on the last). */
export function timePage<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last ? encodeTimeCursor({ at: last.createdAt, id: last.id }) : null };
}
