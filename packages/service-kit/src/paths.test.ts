import { pathMatcher } from './service';

test('pathMatcher: exact entries and prefix/* entries', () => {
  const isPublic = pathMatcher(['/api/v1/payments/notify', '/api/v1/catalog/*']);
  expect(isPublic('/api/v1/payments/notify')).toBe(true);
  expect(isPublic('/api/v1/payments/notify/x')).toBe(false);
  expect(isPublic('/api/v1/catalog')).toBe(true);
  expect(isPublic('/api/v1/catalog/products/1')).toBe(true);
  expect(isPublic('/api/v1/catalogue')).toBe(false);
  expect(isPublic('/api/v1/account/addresses')).toBe(false);
});
