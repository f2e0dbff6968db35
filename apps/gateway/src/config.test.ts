import { ConfigError, DEV_ADMIN_PASSWORD, DEV_IDENTITY_SECRET } from '@pasar/service-kit';
import { TEST_NATS_NKEY_SEED } from '@pasar/testkit';
import { loadGatewayConfig } from './config';

const base = { NODE_ENV: 'development', IDENTITY_SECRET: 'x'.repeat(32) };

describe('gateway config', () => {
  it('has defaults that work locally', () => {
    const config = loadGatewayConfig(base);
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres?schema=identity',
      CHECKOUT_URL: ['http://127.0.0.1:4001'],
      B2B_URL: ['http://127.0.0.1:4002'],
      VENDOR_URL: ['http://127.0.0.1:4003'],
      ADMIN_URL: ['http://127.0.0.1:4004'],
      UPSTREAM_HEALTH_INTERVAL_MS: 2_000,
      UPSTREAM_TIMEOUT_MS: 10_000,
      CORS_ORIGINS: [],
      SIGN_IN_LIMIT_PER_EMAIL_IP: 10,
      SIGN_IN_LIMIT_PER_EMAIL: 5,
      GATEWAY_REPLICAS: 1,
      SIGN_IN_LIMIT_PER_IP: 50,
      SESSION_TTL_DAYS: 7,
    });
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.ADMIN_EMAIL).toBeUndefined();
  });

  it('refuses to start in production with more than one replica and no REDIS_URL, naming REDIS_URL', () => {
    const production = { ...base, NODE_ENV: 'production', NATS_NKEY_SEED: TEST_NATS_NKEY_SEED };
    expect(() => loadGatewayConfig({ ...production, GATEWAY_REPLICAS: '3' })).toThrow(/REDIS_URL.*GATEWAY_REPLICAS/s);
    expect(loadGatewayConfig({ ...production, GATEWAY_REPLICAS: '3', REDIS_URL: 'redis://redis:6379' }).GATEWAY_REPLICAS).toBe(3);
    expect(loadGatewayConfig(production).GATEWAY_REPLICAS).toBe(1);
    expect(loadGatewayConfig({ ...base, GATEWAY_REPLICAS: '3' }).REDIS_URL).toBeUndefined(); // development: per replica is fine
    expect(() => loadGatewayConfig({ ...base, GATEWAY_REPLICAS: '0' })).toThrow(/GATEWAY_REPLICAS/);
  });

  it('leases a live stream’s shared slot for 2.5 heartbeats unless told, and refuses a lease a missed renewal would lose', () => {
    expect(loadGatewayConfig(base).LIVE_STREAM_LEASE_MS).toBe(37_500);
    expect(loadGatewayConfig({ ...base, LIVE_HEARTBEAT_MS: '1000' }).LIVE_STREAM_LEASE_MS).toBe(2_500);
    expect(loadGatewayConfig({ ...base, LIVE_STREAM_LEASE_MS: '60000' }).LIVE_STREAM_LEASE_MS).toBe(60_000);
    expect(() => loadGatewayConfig({ ...base, LIVE_STREAM_LEASE_MS: '30000' })).toThrow(/LIVE_STREAM_LEASE_MS.*two LIVE_HEARTBEAT_MS/s);
    expect(() => loadGatewayConfig({ ...base, LIVE_STREAM_LEASE_MS: '0' })).toThrow(/LIVE_STREAM_LEASE_MS/);
  });

  it('takes a comma-separated list of instance URLs per service, and names a bad one', () => {
    const config = loadGatewayConfig({ ...base, CHECKOUT_URL: 'http://127.0.0.1:4001, http://127.0.0.1:4101/,http://127.0.0.1:4001' });
    expect(config.CHECKOUT_URL).toEqual(['http://127.0.0.1:4001', 'http://127.0.0.1:4101']);
    expect(() => loadGatewayConfig({ ...base, B2B_URL: 'http://127.0.0.1:4002,nope' })).toThrow(/B2B_URL/);
    expect(() => loadGatewayConfig({ ...base, VENDOR_URL: ' , ' })).toThrow(/VENDOR_URL/);
  });

  it('uses the development identity secret in development and test only; a missing NODE_ENV is production', () => {
    expect(loadGatewayConfig({ NODE_ENV: 'development' }).IDENTITY_SECRET).toBe(DEV_IDENTITY_SECRET);
    expect(loadGatewayConfig({ NODE_ENV: 'test' }).IDENTITY_SECRET).toBe(DEV_IDENTITY_SECRET);
    expect(() => loadGatewayConfig({ NODE_ENV: 'production' })).toThrow(/IDENTITY_SECRET/);
    expect(() => loadGatewayConfig({})).toThrow(/IDENTITY_SECRET/);
    expect(() => loadGatewayConfig({ NODE_ENV: '' })).toThrow(/IDENTITY_SECRET/);
    expect(() => loadGatewayConfig({ NODE_ENV: 'production', IDENTITY_SECRET: DEV_IDENTITY_SECRET })).toThrow(
      /IDENTITY_SECRET is the public development default/,
    );
  });

  it('refuses the public administrator password in production, naming ADMIN_PASSWORD', () => {
    const admin = { ADMIN_EMAIL: 'admin@pasar.local', ADMIN_PASSWORD: DEV_ADMIN_PASSWORD };
    expect(loadGatewayConfig({ ...base, ...admin }).ADMIN_PASSWORD).toBe(DEV_ADMIN_PASSWORD);
    const production = { ...base, NODE_ENV: 'production', NATS_NKEY_SEED: TEST_NATS_NKEY_SEED };
    expect(() => loadGatewayConfig({ ...production, ...admin })).toThrow(/ADMIN_PASSWORD is the public development default/);
    expect(loadGatewayConfig({ ...production, ...admin, ADMIN_PASSWORD: 'a-password-of-our-own' }).ADMIN_PASSWORD).toBe('a-password-of-our-own');
  });

  it('splits CORS origins and lower-cases the admin e-mail', () => {
    const config = loadGatewayConfig({
      ...base,
      CORS_ORIGINS: 'http://localhost:3000, https://shop.example ,',
      ADMIN_EMAIL: 'Admin@Pasar.Local',
      ADMIN_PASSWORD: 'long enough',
      REDIS_URL: '',
    });
    expect(config.CORS_ORIGINS).toEqual(['http://localhost:3000', 'https://shop.example']);
    expect(config.ADMIN_EMAIL).toBe('admin@pasar.local');
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('fails fast naming every bad variable', () => {
    let error: unknown;
    try {
      loadGatewayConfig({ IDENTITY_SECRET: 'short', CHECKOUT_URL: 'not a url', UPSTREAM_TIMEOUT_MS: '-1' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/IDENTITY_SECRET/);
    expect(message).toMatch(/CHECKOUT_URL/);
    expect(message).toMatch(/UPSTREAM_TIMEOUT_MS/);
  });

  it('reads TRUST_PROXY as express does', () => {
    expect(loadGatewayConfig(base).TRUST_PROXY).toBe('loopback');
    expect(loadGatewayConfig({ ...base, TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadGatewayConfig({ ...base, TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadGatewayConfig({ ...base, TRUST_PROXY: '10.0.0.0/8,loopback' }).TRUST_PROXY).toBe('10.0.0.0/8,loopback');
  });

  it('reads the abuse limits as <count>/<window>, loose by default in development and test, strict otherwise', () => {
    expect(loadGatewayConfig(base).RATE_LIMIT_SIGN_UP).toEqual({ points: 2000, durationS: 60 });
    const production = loadGatewayConfig({ ...base, NODE_ENV: 'production', NATS_NKEY_SEED: TEST_NATS_NKEY_SEED });
    expect(production.RATE_LIMIT_SIGN_UP).toEqual({ points: 10, durationS: 3600 });
    expect(production.RATE_LIMIT_VENDOR_APPLICATIONS).toEqual({ points: 5, durationS: 3600 });
    expect(loadGatewayConfig({ ...base, RATE_LIMIT_PAYMENT_NOTIFY: '5/30s', RATE_LIMIT_FAMILY_INVITES: '' })).toMatchObject({
      RATE_LIMIT_PAYMENT_NOTIFY: { points: 5, durationS: 30 },
      RATE_LIMIT_FAMILY_INVITES: { points: 2000, durationS: 60 },
    });
    expect(() => loadGatewayConfig({ ...base, RATE_LIMIT_SIGN_UP: 'ten per hour' })).toThrow(/RATE_LIMIT_SIGN_UP/);
    expect(() => loadGatewayConfig({ ...base, RATE_LIMIT_SIGN_UP: '0/1h' })).toThrow(/RATE_LIMIT_SIGN_UP/);
  });

  it('wants ADMIN_EMAIL and ADMIN_PASSWORD together', () => {
    expect(() => loadGatewayConfig({ ...base, ADMIN_EMAIL: 'admin@pasar.local' })).toThrow(/ADMIN_EMAIL and ADMIN_PASSWORD together/);
  });
});
