import { loadConfig, runMain } from '@pasar/service-kit';
import { startNotifier } from './app';
import { notifierConfigSchema } from './config';

runMain('notifier', async () => {
  const config = loadConfig(notifierConfigSchema);
  const notifier = await startNotifier(config);
  return { log: notifier.log, closers: [{ name: 'notifier', close: () => notifier.close() }] };
});
