import { isValidMsic, normaliseMsic } from './index';

describe('normaliseMsic', () => {
  test.each([
    ['47911', '47911'],
    ['01111', '01111'],
    ['00000', '00000'],
    [' 62010 ', '62010'],
    ['4 7 9 1 1', '47911'],
    ['\t96099\n', '96099'],
  ])('"%s" is valid as %s', (input, expected) => {
    expect(normaliseMsic(input)).toEqual({ ok: true, value: expected });
  });

  test.each([['4791'], ['479111'], ['1'], ['4791A'], ['A4791'], ['ABCDE'], ['4791-1'], ['47.91'], ['４７９１１']])(
    '"%s" is not five digits',
    (input) => {
      expect(normaliseMsic(input)).toEqual({ ok: false, reason: 'MSIC code must be exactly 5 digits' });
    },
  );

  test.each([[''], ['   ']])('"%s" is required', (input) => {
    expect(normaliseMsic(input)).toEqual({ ok: false, reason: 'MSIC code is required' });
  });
});

describe('isValidMsic', () => {
  test.each([
    ['47911', true],
    [' 47911 ', true],
    ['4791', false],
    ['479112', false],
    ['4791x', false],
    ['', false],
  ])('"%s" → %s', (input, expected) => {
    expect(isValidMsic(input)).toBe(expected);
  });
});
