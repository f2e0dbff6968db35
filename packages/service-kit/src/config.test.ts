import { createNatsUserKey } from '@pasar/bus';
import { ConfigError, baseConfigSchema, busAuthOf, durationMs, loadConfig, serviceConfigSchema } from './config';

const required = { PORT: '4100', DATABASE_URL: 'postgresql://x@h/db?schema=s', IDENTITY_SECRET: 'x'.repeat(16) };
const DAY = 86_400_000;

describe('bus retention settings', () => {
  test('default to 7 days of published outbox rows, 14 days of inbox rows, pruned hourly', () => {
    expect(loadConfig(baseConfigSchema, required)).toMatchObject({ OUTBOX_RETENTION: 7 * DAY, INBOX_RETENTION: 14 * DAY, BUS_PRUNE_INTERVAL: 3_600_000 });
  });

  test('take durations with a unit', () => {
    const config = loadConfig(baseConfigSchema, { ...required, OUTBOX_RETENTION: '36h', INBOX_RETENTION: '30d', BUS_PRUNE_INTERVAL: '90s' });
    expect(config).toMatchObject({ OUTBOX_RETENTION: 36 * 3_600_000, INBOX_RETENTION: 30 * DAY, BUS_PRUNE_INTERVAL: 90_000 });
    expect(durationMs.parse('1500ms')).toBe(1500);
    expect(durationMs.parse('15m')).toBe(900_000);
  });

  test.each(['7', '7 days', '-1d', '500ms', ''])('refuse %j, naming the variable', (value) => {
    expect(() => loadConfig(baseConfigSchema, { ...required, INBOX_RETENTION: value })).toThrow(ConfigError);
    expect(() => loadConfig(baseConfigSchema, { ...required, INBOX_RETENTION: value })).toThrow(/INBOX_RETENTION/);
  });
});

describe('NATS credentials', () => {
  const schema = serviceConfigSchema({ port: 4999, schema: 'example' }, {});
  const seed = createNatsUserKey().seed;
  const secret = 'a-production-secret-of-32-chars!';

  test('production refuses to start without NATS_NKEY_SEED, naming it', () => {
    expect(() => loadConfig(schema, { NODE_ENV: 'production', IDENTITY_SECRET: secret })).toThrow(/NATS_NKEY_SEED must be set/);
    expect(() => loadConfig(schema, { IDENTITY_SECRET: secret, NATS_NKEY_SEED: '' })).toThrow(/NATS_NKEY_SEED must be set/);
    expect(loadConfig(schema, { NODE_ENV: 'production', IDENTITY_SECRET: secret, NATS_NKEY_SEED: seed }).NATS_NKEY_SEED).toBe(seed);
  });

  test('development and test connect anonymously when none is set', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const config = loadConfig(schema, { NODE_ENV });
      expect(config.NATS_NKEY_SEED).toBeUndefined();
      expect(busAuthOf(config)).toBeUndefined();
    }
  });

  test('refuses anything but a user seed', () => {
    expect(() => loadConfig(schema, { NODE_ENV: 'test', NATS_NKEY_SEED: 'UABCDEF' })).toThrow(/NATS_NKEY_SEED must be an NKey user seed/);
  });

  test('hands the seed and TLS files to the bus', () => {
    const config = loadConfig(schema, { NODE_ENV: 'test', NATS_NKEY_SEED: seed, NATS_TLS_CA: '/etc/nats/ca.pem' });
    expect(busAuthOf(config)).toEqual({ nkeySeed: seed, tls: { caFile: '/etc/nats/ca.pem' } });
  });
});
