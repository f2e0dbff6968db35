import { ConfigError, loadConfig } from '@pasar/service-kit';
import { DEV_IDENTITY_SECRET } from '@pasar/service-kit';
import { TEST_NATS_NKEY_SEED } from '@pasar/testkit';
import { notifierConfigSchema } from './config';

describe('notifier config', () => {
  it('works locally with NODE_ENV=development and nothing else', () => {
    const config = loadConfig(notifierConfigSchema, { NODE_ENV: 'development' });
    expect(config).toMatchObject({
      PORT: 4005,
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres?schema=notifier',
      SMTP_URL: 'smtp://127.0.0.1:1025',
      MAIL_FROM: 'Pasar <no-reply@pasar.local>',
      SMTP_CONNECTION_TIMEOUT_MS: 10000,
      SMTP_GREETING_TIMEOUT_MS: 10000,
      SMTP_SOCKET_TIMEOUT_MS: 10000,
      IDENTITY_SECRET: DEV_IDENTITY_SECRET,
    });
    expect(config.EMAIL_RETRY_BACKOFF_MS.length).toBeGreaterThan(0);
  });

  it('reads the backoff as a list of milliseconds', () => {
    expect(loadConfig(notifierConfigSchema, { NODE_ENV: 'test', EMAIL_RETRY_BACKOFF_MS: '100, 250,1000' }).EMAIL_RETRY_BACKOFF_MS).toEqual([100, 250, 1000]);
  });

  it('names every bad variable', () => {
    const error = (() => {
      try {
        loadConfig(notifierConfigSchema, { EMAIL_RETRY_BACKOFF_MS: '100,,x', SMTP_URL: 'http://mail', SMTP_SOCKET_TIMEOUT_MS: '0' });
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/EMAIL_RETRY_BACKOFF_MS/);
    expect(String(error)).toMatch(/SMTP_URL/);
    expect(String(error)).toMatch(/SMTP_SOCKET_TIMEOUT_MS/);
  });

  it('has no default identity secret in production', () => {
    expect(() => loadConfig(notifierConfigSchema, { NODE_ENV: 'production' })).toThrow(/IDENTITY_SECRET/);
    expect(() => loadConfig(notifierConfigSchema, {})).toThrow(/IDENTITY_SECRET/);
    const secret = 'a-production-secret-of-32-chars!';
    expect(() => loadConfig(notifierConfigSchema, { NODE_ENV: 'production', IDENTITY_SECRET: secret })).toThrow(/NATS_NKEY_SEED must be set/);
    expect(loadConfig(notifierConfigSchema, { NODE_ENV: 'production', IDENTITY_SECRET: secret, NATS_NKEY_SEED: TEST_NATS_NKEY_SEED }).IDENTITY_SECRET).toBe(secret);
  });
});
