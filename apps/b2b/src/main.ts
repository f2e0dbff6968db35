import { loadConfig, runMain } from '@pasar/service-kit';
import { startB2b } from './app';
import { b2bConfigSchema } from './config';

runMain('b2b', async () => {
  const b2b = await startB2b(loadConfig(b2bConfigSchema));
  return { log: b2b.log, closers: [{ name: 'b2b', close: () => b2b.close() }] };
});
