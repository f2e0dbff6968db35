import { isSameAddress, setupAddressBody } from './rules';

describe('setup address', () => {
  const address = { fullName: 'Nur', phone: '+6011', addressLine1: '1 Jalan', addressLine2: null, city: 'Ipoh', postcode: '30000', state: 'Perak' };
  const stored = { ...address, label: 'Anything' };

  test('becomes a default address request labelled Home', () => {
    expect(setupAddressBody(address)).toEqual({
      label: 'Home',
      full_name: 'Nur',
      phone: '+6011',
      address_line_1: '1 Jalan',
      address_line_2: null,
      city: 'Ipoh',
      postcode: '30000',
      state: 'Perak',
      is_default: true,
    });
  });

  test('matches a stored address with the same fields, whatever its label; an empty second line is none; spaces around do not count', () => {
    expect(isSameAddress(stored, address)).toBe(true);
    expect(isSameAddress({ ...stored, addressLine2: '' }, address)).toBe(true);
    expect(isSameAddress(stored, { ...address, city: ' Ipoh ' })).toBe(true);
  });

  test.each(['fullName', 'phone', 'addressLine1', 'city', 'postcode', 'state'] as const)('differs when %s differs', (field) => {
    expect(isSameAddress({ ...stored, [field]: 'other' }, address)).toBe(false);
  });

  test('differs when the second line differs', () => {
    expect(isSameAddress({ ...stored, addressLine2: 'Level 2' }, address)).toBe(false);
  });
});
