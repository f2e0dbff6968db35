import type { AccountSetupBody } from '@pasar/contracts';
import { setupCompletedData } from './rules';

describe('setupCompletedData', () => {
  const body: AccountSetupBody = {
    currentPassword: 'temporary-123',
    newPassword: 'my own password',
    fullName: 'Nur Aisyah',
    phone: '+60111222333',
    address: { fullName: 'Nur A.', phone: '+60111222334', addressLine1: '1 Jalan Satu', addressLine2: '', city: 'Ipoh', postcode: '30000', state: 'Perak' },
  };
  const at = new Date('2026-02-03T04:05:06.000Z');

  test('carries name, phone and address; a blank second line is null; no billing sent is billing null', () => {
    expect(setupCompletedData('u1', body, null, at)).toEqual({
      userId: 'u1',
      fullName: 'Nur Aisyah',
      phone: '+60111222333',
      address: { fullName: 'Nur A.', phone: '+60111222334', addressLine1: '1 Jalan Satu', addressLine2: null, city: 'Ipoh', postcode: '30000', state: 'Perak' },
      billing: null,
      completedAt: '2026-02-03T04:05:06.000Z',
    });
  });

  test('billing sent: the normalised TIN, or null when it was left empty', () => {
    const withBilling = { ...body, billing: { tin: 'c-01' }, address: { ...body.address, addressLine2: 'Level 2' } };
    expect(setupCompletedData('u1', withBilling, 'C1', at)).toMatchObject({ billing: { tin: 'C1' }, address: { addressLine2: 'Level 2' } });
    expect(setupCompletedData('u1', { ...body, billing: {} }, null, at).billing).toEqual({ tin: null });
  });
});
