import { isCarrierMockOn } from './rules';

test('CARRIER_MOCK is honoured outside production only', () => {
  expect(isCarrierMockOn({ NODE_ENV: 'development', CARRIER_MOCK: true })).toBe(true);
  expect(isCarrierMockOn({ NODE_ENV: 'test', CARRIER_MOCK: true })).toBe(true);
  expect(isCarrierMockOn({ NODE_ENV: 'production', CARRIER_MOCK: true })).toBe(false);
  expect(isCarrierMockOn({ NODE_ENV: 'development', CARRIER_MOCK: false })).toBe(false);
});
