import { join } from 'node:path';
import { describeServiceBasics } from '@pasar/testkit';
import { startVendor } from './app';
import { vendorConfigSchema } from './config';

describeServiceBasics({
  name: 'vendor',
  port: 4003,
  schema: 'vendor',
  configSchema: vendorConfigSchema,
  start: startVendor,
  generatedDir: join(__dirname, 'generated', 'prisma'),
});
