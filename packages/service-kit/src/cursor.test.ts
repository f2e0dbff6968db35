import { decodeTimeCursor, encodeTimeCursor } from './cursor';
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
