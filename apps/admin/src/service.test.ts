import { join } from 'node:path';
import { describeServiceBasics } from '@pasar/testkit';
import { startAdmin } from './app';
import { adminConfigSchema } from './config';

describeServiceBasics({
  name: 'admin',
  port: 4004,
  schema: 'admin',
  configSchema: adminConfigSchema,
  start: startAdmin,
  generatedDir: join(__dirname, 'generated', 'prisma'),
});
