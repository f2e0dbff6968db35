import { NON_INDIVIDUAL_TIN_PREFIXES, isValidTin, normaliseTin, type TinResult } from './index';

function expectValid(input: string): Extract<TinResult, { ok: true }> {
  const result = normaliseTin(input);
  if (!result.ok) throw new Error(`expected "${input}" to be valid, got: ${result.reason}`);
  return result;
}

function expectInvalid(input: string): string {
  const result = normaliseTin(input);
  if (result.ok) throw new Error(`expected "${input}" to be invalid, got: ${result.value}`);
  return result.reason;
}

describe('NON_INDIVIDUAL_TIN_PREFIXES', () => {
  test('lists the 13 prefixes of DESIGN §7', () => {
    expect([...NON_INDIVIDUAL_TIN_PREFIXES].sort()).toEqual(
      ['C', 'CS', 'D', 'F', 'FA', 'PT', 'TA', 'TC', 'TN', 'TR', 'TP', 'J', 'LE'].sort(),
    );
  });
});

describe('normaliseTin: non-individual', () => {
  const prefixes = NON_INDIVIDUAL_TIN_PREFIXES.map((prefix) => [prefix]);

  test.each(prefixes)('%s + digits is valid and kept', (prefix) => {
    expect(normaliseTin(`${prefix}2581234509`)).toEqual({
      ok: true,
      value: `${prefix}2581234509`,
      kind: 'non_individual',
      prefix,
    });
  });

  test.each(prefixes)('%s drops leading zeros, spaces and dashes', (prefix) => {
    expect(expectValid(`${prefix} 0001234-5`).value).toBe(`${prefix}12345`);
  });

  test.each(prefixes)('%s in lower case is upper-cased', (prefix) => {
    expect(expectValid(`${prefix.toLowerCase()}00987`).value).toBe(`${prefix}987`);
  });

  test.each(prefixes)('%s accepts a single digit', (prefix) => {
    expect(expectValid(`${prefix}7`).value).toBe(`${prefix}7`);
  });

  test.each(prefixes)('%s accepts 12 digits after the zeros are stripped', (prefix) => {
    expect(expectValid(`${prefix}000123456789012`).value).toBe(`${prefix}123456789012`);
  });

  test.each(prefixes)('%s rejects 13 digits after the zeros are stripped', (prefix) => {
    expect(expectInvalid(`${prefix}0001234567890123`)).toMatch(/1 to 12 digits/);
  });

  test.each(prefixes)('%s rejects all-zero digits', (prefix) => {
    expect(expectInvalid(`${prefix}0000`)).toMatch(/zeros/);
  });

  test.each(prefixes)('%s without digits is invalid', (prefix) => {
    expect(expectInvalid(prefix)).toMatch(/digits after the prefix/);
  });

  test.each([
    ['C 0001234-5', 'C12345'],
    ['c-12345', 'C12345'],
    ['  CS 12 345  ', 'CS12345'],
    ['cs0012345', 'CS12345'],
    ['F-000-999', 'F999'],
    ['fa 1', 'FA1'],
    ['Le\t0042', 'LE42'],
    ['TP--0-0-1', 'TP1'],
    ['C0000000000000000001', 'C1'],
  ])('"%s" normalises to %s', (input, expected) => {
    expect(expectValid(input).value).toBe(expected);
  });

  test.each([
    ['CS123', 'CS'],
    ['C123', 'C'],
    ['FA123', 'FA'],
    ['F123', 'F'],
    ['TA123', 'TA'],
    ['LE123', 'LE'],
  ])('"%s" matches the longest prefix %s', (input, prefix) => {
    expect(expectValid(input).prefix).toBe(prefix);
  });
});

describe('normaliseTin: individual', () => {
  test.each([
    ['IG123456789', 'IG123456789'],
    ['IG1234567890', 'IG1234567890'],
    ['IG12345678901', 'IG12345678901'],
    ['ig 1234-5678-90', 'IG1234567890'],
    ['  Ig12345678901 ', 'IG12345678901'],
  ])('"%s" is valid as %s', (input, expected) => {
    expect(normaliseTin(input)).toEqual({ ok: true, value: expected, kind: 'individual', prefix: 'IG' });
  });

  test.each([
    ['IG000123456', 'IG000123456'],
    ['IG0000000000', 'IG0000000000'],
    ['ig 00-123-456-78', 'IG0012345678'],
  ])('"%s" keeps its leading zeros: %s', (input, expected) => {
    expect(expectValid(input).value).toBe(expected);
  });

  test.each([['IG12345678'], ['IG123456789012'], ['IG1'], ['IG 0001234-5']])(
    '"%s" has the wrong number of digits',
    (input) => {
      expect(expectInvalid(input)).toMatch(/IG followed by 9 to 11 digits/);
    },
  );

  test('IG alone is invalid', () => {
    expect(expectInvalid('IG')).toMatch(/digits after the prefix/);
  });
});

describe('normaliseTin: invalid input', () => {
  test.each([[''], ['   '], ['-'], [' - - ']])('"%s" is required', (input) => {
    expect(expectInvalid(input)).toBe('TIN is required');
  });

  test.each([['X123'], ['123456789'], ['CX123'], ['G123'], ['IGX123456789'], ['CSS123'], ['LEE1'], ['Ł123']])(
    '"%s" has an unknown prefix',
    (input) => {
      expect(expectInvalid(input)).toBe(
        'TIN must start with IG or one of C, CS, D, F, FA, PT, TA, TC, TN, TR, TP, J, LE',
      );
    },
  );

  test.each([['C12A34'], ['IG1234S6789'], ['C123.4'], ['C12_34'], ['FA1/2'], ['D12C']])(
    '"%s" has something other than digits after the prefix',
    (input) => {
      expect(expectInvalid(input)).toBe('TIN may contain only digits after its prefix');
    },
  );
});

describe('isValidTin', () => {
  test.each([
    ['C 0001234-5', true],
    ['ig123456789', true],
    ['LE1', true],
    ['IG12345678', false],
    ['C0', false],
    ['X123', false],
    ['', false],
  ])('"%s" → %s', (input, expected) => {
    expect(isValidTin(input)).toBe(expected);
  });
});
