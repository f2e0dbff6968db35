import { loadConfig, runMain } from '@pasar/service-kit';
import { startVendor } from './app';
import { vendorConfigSchema } from './config';

runMain('vendor', async () => {
  const vendor = await startVendor(loadConfig(vendorConfigSchema));
  return { log: vendor.log, closers: [{ name: 'vendor', close: () => vendor.close() }] };
});
