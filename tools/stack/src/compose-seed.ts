/**
 * Seeds the demo data of `npm start` (tools/stack/src/seed.ts) into a docker compose stack, so the
 * README's curl walkthrough runs against it. `npm run compose:smoke` runs it with the stack's NATS
 * published on 127.0.0.1 by deploy/compose/smoke.yml:
 *   NATS_URL=nats://127.0.0.1:14222 NATS_NKEY_SEED=$(cat .data/nats-users/stack.nk) GATEWAY_URL=http://127.0.0.1:8080 ADMIN_EMAIL=... \
 *   ADMIN_PASSWORD=... DEMO_PASSWORD=... npx tsx tools/stack/src/compose-seed.ts
 * LOAD_CUSTOMERS=N adds N customers with an address (seedLoadCustomers; `npm run cluster:chaos`).
 * Prints the seed's result as one JSON line (with `loadCustomers`, their e-mails).
 */
import { Bus } from '@pasar/bus';
import pino from 'pino';
import { seedDemoData, seedLoadCustomers } from './seed';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`compose-seed: set ${name}`);
  return value;
}

async function main(): Promise<void> {
  const bus = await Bus.connect({
    natsUrl: required('NATS_URL'),
    namespace: '',
    service: 'stack',
    log: pino({ level: 'silent' }),
    // the "stack" user of `npm run nats:config -- --with-stack`
    auth: { nkeySeed: required('NATS_NKEY_SEED') },
  });
  try {
    const gatewayUrl = required('GATEWAY_URL');
    const password = required('DEMO_PASSWORD');
    const result = await seedDemoData({
      bus,
      gatewayUrl,
      admin: { email: required('ADMIN_EMAIL'), password: required('ADMIN_PASSWORD') },
      password,
      timeoutMs: 60_000,
    });
    const count = Number(process.env.LOAD_CUSTOMERS ?? 0);
    if (!Number.isInteger(count) || count < 0) throw new Error('compose-seed: LOAD_CUSTOMERS is a count (0 or more)');
    const loadCustomers = count > 0 ? await seedLoadCustomers({ bus, gatewayUrl, password, count }) : [];
    console.log(JSON.stringify({ ...result, loadCustomers }));
  } finally {
    await bus.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
