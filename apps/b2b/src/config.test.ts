import { ConfigError, loadConfig } from '@pasar/service-kit';
import { b2bConfigSchema } from './config';

const base = { NODE_ENV: 'test' };

test('reservation TTL and sweep: 10 minutes and 30 seconds by default, durations read as milliseconds', () => {
  expect(loadConfig(b2bConfigSchema, base)).toMatchObject({ B2B_RESERVATION_TTL: 600_000, B2B_RESERVATION_SWEEP: 30_000 });
  expect(loadConfig(b2bConfigSchema, { ...base, B2B_RESERVATION_TTL: '3s', B2B_RESERVATION_SWEEP: '500ms' })).toMatchObject({
    B2B_RESERVATION_TTL: 3_000,
    B2B_RESERVATION_SWEEP: 500,
  });
  expect(loadConfig(b2bConfigSchema, { ...base, B2B_RESERVATION_TTL: '2h' }).B2B_RESERVATION_TTL).toBe(7_200_000);
});

test.each(['10', 'ten minutes', '-5m', '1w'])('a TTL of %j stops the start with the variable named', (value) => {
  expect(() => loadConfig(b2bConfigSchema, { ...base, B2B_RESERVATION_TTL: value })).toThrow(ConfigError);
  expect(() => loadConfig(b2bConfigSchema, { ...base, B2B_RESERVATION_TTL: value })).toThrow(/B2B_RESERVATION_TTL/);
});

test('PUBLIC_STORAGE_URL and APP_URL must be http(s) URLs', () => {
  expect(() => loadConfig(b2bConfigSchema, { ...base, PUBLIC_STORAGE_URL: 'javascript:alert(1)' })).toThrow(/PUBLIC_STORAGE_URL/);
  expect(() => loadConfig(b2bConfigSchema, { ...base, APP_URL: 'not a url' })).toThrow(/APP_URL/);
});
