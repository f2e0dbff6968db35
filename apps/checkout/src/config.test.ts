import { ConfigError, DEV_IDENTITY_SECRET, loadConfig } from '@pasar/service-kit';
import { TEST_NATS_NKEY_SEED } from '@pasar/testkit';
import { DEV_PAYMENT_SECRETS, checkoutConfigSchema } from './config';

const PRODUCTION = { NODE_ENV: 'production', IDENTITY_SECRET: 'a-production-identity-secret-32ch', NATS_NKEY_SEED: TEST_NATS_NKEY_SEED };
const REAL_KEYS = { PAYMENT_MERCHANT_ID: 'shop_live', PAYMENT_VERIFY_KEY: 'live-verify-key-1', PAYMENT_SECRET_KEY: 'live-secret-key-1' };

function configError(env: Record<string, string>): string {
  try {
    loadConfig(checkoutConfigSchema, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('checkout config: payment secrets fail closed', () => {
  test.each(['development', 'test'])('NODE_ENV=%s takes the public sandbox keys', (nodeEnv) => {
    expect(loadConfig(checkoutConfigSchema, { NODE_ENV: nodeEnv })).toMatchObject({ ...DEV_PAYMENT_SECRETS, IDENTITY_SECRET: DEV_IDENTITY_SECRET });
  });

  test('production without keys refuses to start, naming every missing one', () => {
    const message = configError(PRODUCTION);
    for (const name of Object.keys(REAL_KEYS)) expect(message).toContain(name);
  });

  test('a missing NODE_ENV is production', () => {
    const message = configError({ IDENTITY_SECRET: PRODUCTION.IDENTITY_SECRET });
    for (const name of Object.keys(REAL_KEYS)) expect(message).toContain(name);
  });

  test.each(Object.keys(DEV_PAYMENT_SECRETS))('production refuses the public default of %s', (name) => {
    const env = { ...PRODUCTION, ...REAL_KEYS, [name]: DEV_PAYMENT_SECRETS[name as keyof typeof DEV_PAYMENT_SECRETS] };
    expect(configError(env)).toMatch(new RegExp(`${name} is the public development default`));
  });

  test('production with keys of its own starts', () => {
    expect(loadConfig(checkoutConfigSchema, { ...PRODUCTION, ...REAL_KEYS })).toMatchObject({ NODE_ENV: 'production', ...REAL_KEYS });
  });
});
