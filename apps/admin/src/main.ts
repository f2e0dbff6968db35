import { loadConfig, runMain } from '@pasar/service-kit';
import { startAdmin } from './app';
import { adminConfigSchema } from './config';

runMain('admin', async () => {
  const admin = await startAdmin(loadConfig(adminConfigSchema));
  return { log: admin.log, closers: [{ name: 'admin', close: () => admin.close() }] };
});
