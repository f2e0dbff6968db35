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
