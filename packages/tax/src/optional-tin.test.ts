import { normaliseOptionalTin } from './tin';

// Used by account setup (gateway), PATCH /account/tin (checkout) and the buyer TIN of submit.
describe('normaliseOptionalTin', () => {
  test.each([undefined, null, '', '   ', '  '])('%p is no TIN', (input) => {
    expect(normaliseOptionalTin(input)).toEqual({ ok: true, tin: null });
  });

  test.each([
    ['c 0012345-6', 'C123456'],
    ['IG012345678', 'IG012345678'],
    [' ig 0123-4567-89 ', 'IG0123456789'],
    ['LE000000000001', 'LE1'],
    ['c-0012345', 'C12345'],
    ['ig 012345678', 'IG012345678'],
    ['TP 000 99', 'TP99'],
  ])('%p is normalised to %p', (input, tin) => {
    expect(normaliseOptionalTin(input)).toEqual({ ok: true, tin });
  });

  test.each(['X123', 'IG123', 'C000', 'C12A', 'IG', 'IG12345678', 'C0', 'C1234567890123'])('%p is refused with a reason', (input) => {
    expect(normaliseOptionalTin(input)).toEqual({ ok: false, reason: expect.any(String) });
  });
});
