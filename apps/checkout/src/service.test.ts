import { join } from 'node:path';
import { describeServiceBasics } from '@pasar/testkit';
import { startCheckout } from './app';
import { checkoutConfigSchema } from './config';

describeServiceBasics({
  name: 'checkout',
  port: 4001,
  schema: 'checkout',
  configSchema: checkoutConfigSchema,
  start: startCheckout,
  generatedDir: join(__dirname, 'generated', 'prisma'),
});
