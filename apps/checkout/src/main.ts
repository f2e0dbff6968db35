import { loadConfig, runMain } from '@pasar/service-kit';
import { startCheckout } from './app';
import { checkoutConfigSchema } from './config';

runMain('checkout', async () => {
  const checkout = await startCheckout(loadConfig(checkoutConfigSchema));
  return { log: checkout.log, closers: [{ name: 'checkout', close: () => checkout.close() }] };
});
