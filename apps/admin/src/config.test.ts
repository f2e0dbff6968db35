import { ConfigError, loadConfig } from '@pasar/service-kit';
import { TEST_NATS_NKEY_SEED } from '@pasar/testkit';
import { carriersFromConfig } from './carriers/carriers';
import { DEV_LABEL_SIGNING_KEY, adminConfigSchema, parseDivisors, parseRetryWaits } from './config';

const load = (env: Record<string, string>) => loadConfig(adminConfigSchema, { NODE_ENV: 'test', ...env });
const production = { NODE_ENV: 'production', IDENTITY_SECRET: 'x'.repeat(32), NATS_NKEY_SEED: TEST_NATS_NKEY_SEED };

describe('admin config', () => {
  test('has local defaults: the schedule of DESIGN §5, carriers live, the dev label key', () => {
    const config = load({});
    expect(config).toMatchObject({
      PORT: 4004,
      CARRIER_MOCK: false,
      CARRIER_RETRY_WAITS: [300_000, 900_000, 3_600_000, 21_600_000, 86_400_000],
      CARRIER_TIMEOUT_MS: 8_000,
      LABEL_SIGNING_KEY: DEV_LABEL_SIGNING_KEY,
    });
    expect(config.PUBLIC_API_URL).toBeUndefined();
  });

  test('production refuses to start without its own LABEL_SIGNING_KEY (and takes one it is given)', () => {
    expect(() => load(production)).toThrow(ConfigError);
    expect(() => load(production)).toThrow(/LABEL_SIGNING_KEY/);
    expect(load({ ...production, LABEL_SIGNING_KEY: 'k'.repeat(32) }).LABEL_SIGNING_KEY).toBe('k'.repeat(32));
    expect(() => load({ ...production, LABEL_SIGNING_KEY: 'short' })).toThrow(/LABEL_SIGNING_KEY/);
    // the public development default is refused in production, and a missing NODE_ENV is production
    expect(() => load({ ...production, LABEL_SIGNING_KEY: DEV_LABEL_SIGNING_KEY })).toThrow(/LABEL_SIGNING_KEY is the public development default/);
    expect(() => loadConfig(adminConfigSchema, { IDENTITY_SECRET: 'x'.repeat(32) })).toThrow(/LABEL_SIGNING_KEY/);
  });

  test('CARRIER_RETRY_WAITS reads durations; a bad one is named', () => {
    expect(load({ CARRIER_RETRY_WAITS: '1s, 2s,500ms' }).CARRIER_RETRY_WAITS).toEqual([1000, 2000, 500]);
    expect(() => load({ CARRIER_RETRY_WAITS: '5 minutes' })).toThrow(/CARRIER_RETRY_WAITS/);
    expect(parseRetryWaits('1d,2h')).toEqual([86_400_000, 7_200_000]);
    expect(parseRetryWaits('')).toBeNull();
    expect(parseRetryWaits('1x')).toBeNull();
  });

  test('CARRIER_MOCK swaps in the mock carriers outside production only', async () => {
    const mock = carriersFromConfig(load({ CARRIER_MOCK: 'true' }));
    const booked = await mock.carrier_a.book({
      reference: '5b1d2c4e-7f80-4a9b-8c1d-2e3f4a5b6c7d',
      pickup: { label: 'W', addressLine1: 'a', postcode: '1', state: 's' },
      recipient: { fullName: 'n', phone: '1', addressLine1: 'a', addressLine2: null, city: 'c', postcode: '1', state: 's' },
      parcels: [],
    });
    expect(booked).toMatchObject({ kind: 'booked', trackingNumber: expect.stringMatching(/^MOCKA-5B1D2C4E-/) });
    expect(booked.kind === 'booked' && booked.label?.subarray(0, 5).toString()).toBe('%PDF-');

    const live = carriersFromConfig({ ...load({ ...production, LABEL_SIGNING_KEY: 'k'.repeat(32), CARRIER_MOCK: 'true', CARRIER_A_URL: 'http://127.0.0.1:1' }), CARRIER_TIMEOUT_MS: 200 });
    const unreachable = await live.carrier_a.book({
      reference: '5b1d2c4e-7f80-4a9b-8c1d-2e3f4a5b6c7d',
      pickup: { label: 'W', addressLine1: 'a', postcode: '1', state: 's' },
      recipient: { fullName: 'n', phone: '1', addressLine1: 'a', addressLine2: null, city: 'c', postcode: '1', state: 's' },
      parcels: [],
    });
    expect(unreachable).toMatchObject({ kind: 'retryable', error: expect.stringMatching(/^carrier_a: unreachable/) });
  });
});

describe('parseDivisors', () => {
  test('both carriers, cm³ per kg', () => {
    expect(parseDivisors('carrier_a=6000,carrier_b=5000')).toEqual({ carrier_a: 6000, carrier_b: 5000 });
    expect(parseDivisors(' carrier_b = 4000 , carrier_a=5000')).toEqual({ carrier_a: 5000, carrier_b: 4000 });
  });

  test.each(['', 'carrier_a=6000', 'carrier_a=6000,carrier_b=x', 'carrier_a=6000,carrier_a=5000', 'carrier_a=6000,carrier_b=5000,carrier_c=1', 'carrier_a=0,carrier_b=5000'])('refuses %j', (value) => {
    expect(parseDivisors(value)).toBeNull();
  });
});
