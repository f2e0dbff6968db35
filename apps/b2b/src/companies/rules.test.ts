import { companyTaxIds, oneLineAddress, publicUrl, reviewable as companyReviewable } from './rules';

describe('company rules', () => {
  test('review only from pending', () => {
    expect(companyReviewable('pending')).toEqual({ ok: true });
    expect(companyReviewable('approved')).toMatchObject({ ok: false, code: 'not_pending' });
    expect(companyReviewable('rejected')).toMatchObject({ ok: false, code: 'not_pending' });
  });

  test('TIN normalised, MSIC five digits', () => {
    expect(companyTaxIds('c-00123 45678', ' 47711')).toEqual({ ok: true, tin: 'C12345678', msicCode: '47711' });
    expect(companyTaxIds('IG12345678901', '47711')).toMatchObject({ ok: true, tin: 'IG12345678901' });
    expect(companyTaxIds('ZZ1', '47711')).toMatchObject({ ok: false, code: 'invalid_tin' });
    expect(companyTaxIds('C1', '4771')).toMatchObject({ ok: false, code: 'invalid_msic' });
    expect(companyTaxIds('C1', 'abcde')).toMatchObject({ ok: false, code: 'invalid_msic' });
  });

  test('public URLs and the one-line address', () => {
    expect(publicUrl('https://cdn.example/public/', '/certs/a.pdf')).toBe('https://cdn.example/public/certs/a.pdf');
    expect(publicUrl('https://cdn.example', null)).toBeNull();
    expect(oneLineAddress({ addressLine1: '1 Jalan A', city: 'Ipoh', postcode: '30000', state: 'Perak' })).toBe('1 Jalan A, 30000 Ipoh, Perak');
  });
});
