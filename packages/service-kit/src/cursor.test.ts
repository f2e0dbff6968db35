import { afterTimeCursor, decodeTimeCursor, encodeTimeCursor, timePage } from './cursor';
import { ProblemError } from './problems';

const id = '0b7c5a8e-4d2f-4e55-9a53-1f0e4a1b2c3d';
const at = new Date('2026-12-01T10:20:30.456Z');
const b64 = (text: string) => Buffer.from(text).toString('base64url');

test('a cursor decodes to the position it was encoded from', () => {
  expect(decodeTimeCursor(encodeTimeCursor({ at, id }))).toEqual({ at, id });
});

test.each([
  ['not base64 of anything', '!!!'],
  ['empty', ''],
  ['no id', b64(at.toISOString())],
  ['an id that is not a uuid', b64(`${at.toISOString()}|42`)],
  ['a time that is not a time', b64(`yesterday|${id}`)],
  ['a bare number as time', b64(`1700000000|${id}`)],
  ['an extra part', b64(`${at.toISOString()}|${id}|x`)],
])('%s: 400 invalid_cursor', (_name, cursor) => {
  let thrown: unknown;
  try {
    decodeTimeCursor(cursor);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ProblemError);
  expect(thrown).toMatchObject({ status: 400, code: 'invalid_cursor' });
});

test('afterTimeCursor: nothing on the first page, the rows older than the position after it', () => {
  expect(afterTimeCursor(undefined)).toEqual({});
  expect(afterTimeCursor(encodeTimeCursor({ at, id }))).toEqual({ OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: id } }] });
  expect(() => afterTimeCursor('!!!')).toThrow(ProblemError);
});

test('timePage: at most limit rows, and the next cursor only when a row is left over', () => {
  const rows = [0, 1, 2].map((i) => ({ id: `${id.slice(0, -1)}${i}`, createdAt: new Date(at.getTime() - i * 1000) }));
  const first = timePage(rows, 2);
  expect(first.page).toEqual(rows.slice(0, 2));
  expect(decodeTimeCursor(first.nextCursor as string)).toEqual({ at: rows[1].createdAt, id: rows[1].id });
  expect(timePage(rows, 3)).toEqual({ page: rows, nextCursor: null });
  expect(timePage([], 5)).toEqual({ page: [], nextCursor: null });
});
