import { loadConfig } from '@pasar/service-kit';
import { vendorConfigSchema } from './config';

describe('vendor config: courier tracking-URL templates', () => {
  test('have defaults with the {trackingId} placeholder', () => {
    const config = loadConfig(vendorConfigSchema, { NODE_ENV: 'development' });
    expect(config.CARRIER_A_TRACKING_URL).toContain('{trackingId}');
    expect(config.CARRIER_B_TRACKING_URL).toContain('{trackingId}');
  });

  test('take a template from the environment', () => {
    const config = loadConfig(vendorConfigSchema, { NODE_ENV: 'development', CARRIER_A_TRACKING_URL: 'https://a.test/{trackingId}' });
    expect(config.CARRIER_A_TRACKING_URL).toBe('https://a.test/{trackingId}');
  });

  test.each([
    ['CARRIER_A_TRACKING_URL', 'https://a.test/track'],
    ['CARRIER_B_TRACKING_URL', 'not a url {trackingId}'],
  ])('refuse %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig(vendorConfigSchema, { NODE_ENV: 'development', [name]: value })).toThrow(name);
  });
});
