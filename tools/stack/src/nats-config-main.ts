/**
 * `npm run nats:config -- --out DIR`: writes the nats-server config with one NKey user per service
 * (permissions from packages/contracts bus-permissions.ts) and each service's seed, for compose
 * and other deployments (docs/deploy.md "NATS users and permissions"). `--table` prints the
 * subject permission table of docs/architecture.md instead.
 */
import { parseArgs } from 'node:util';
import { BUS_SERVICES, renderBusPermissionTable, type BusUser } from '@pasar/contracts';
import { writeNatsAuth } from './nats-auth';

const USAGE = `Usage:
  npm run nats:config -- --out DIR [--namespace NS] [--with-stack] [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]
      DIR/nats-auth.conf   the nats-server config (nats-server -c DIR/nats-auth.conf -js ...)
      DIR/<service>.nk     each service's NKey seed (its NATS_NKEY_SEED), created once, then reused
      DIR/<service>.env    NATS_NKEY_SEED=... (an env file)
      --with-stack         also the launcher's seed user "stack" (demo data; not for production)
      --tls-*              the server's certificate files, as the server sees them
  npm run nats:config -- --table
      prints the subject permission table (docs/architecture.md)`;

function main(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string' },
      namespace: { type: 'string', default: '' },
      'with-stack': { type: 'boolean', default: false },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-ca': { type: 'string' },
      table: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.table) {
    process.stdout.write(renderBusPermissionTable());
    return 0;
  }
  if (!values.out) {
    console.error(`--out DIR is required\n\n${USAGE}`);
    return 2;
  }
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) {
    console.error('--tls-cert and --tls-key go together');
    return 2;
  }
  const users: BusUser[] = [...BUS_SERVICES, ...(values['with-stack'] ? (['stack'] as const) : [])];
  const tls = values['tls-cert'] && values['tls-key'] ? { certFile: values['tls-cert'], keyFile: values['tls-key'], ...(values['tls-ca'] ? { caFile: values['tls-ca'] } : {}) } : undefined;
  const { configFile } = writeNatsAuth({ dir: values.out, namespace: values.namespace, users, ...(tls ? { tls } : {}) });
  console.log(`wrote ${configFile} and the seeds of ${users.join(', ')} in ${values.out}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
