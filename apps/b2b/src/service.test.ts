import { join } from 'node:path';
import { describeServiceBasics } from '@pasar/testkit';
import { startB2b } from './app';
import { b2bConfigSchema } from './config';

describeServiceBasics({
  name: 'b2b',
  port: 4002,
  schema: 'b2b',
  configSchema: b2bConfigSchema,
  start: startB2b,
  generatedDir: join(__dirname, 'generated', 'prisma'),
});
