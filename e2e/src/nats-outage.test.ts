/**
 * NATS goes away: sign-ups keep working (the gateway's outbox keeps the events), and once NATS is
 * back every welcome e-mail arrives exactly once. This file runs its own nats-server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer, type LocalNats } from '@pasar/stack';
import { freePort, waitFor } from '@pasar/testkit';
import { newCustomer } from './support/identity';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

const SIGN_UPS = 50;
const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN || undefined;

let storeDir: string;
let port: number;
let nats: LocalNats | undefined;
let natsUp = false;
let e2e: E2eStack | undefined;

beforeAll(async () => {
  storeDir = mkdtempSync(join(tmpdir(), 'pasar-e2e-nats-'));
  port = await freePort();
  nats = await startNatsServer({ storeDir, port, binary: NATS_SERVER_BIN });
  natsUp = true;
  e2e = await startE2eStack({ natsUrl: nats.url });
}, 180_000);

afterAll(async () => {
  // NATS must be up for the stack to delete its streams (the test may have failed mid-outage)
  if (nats && !natsUp) {
    nats = await startNatsServer({ storeDir, port, binary: NATS_SERVER_BIN });
    natsUp = true;
  }
  await e2e?.stop();
  await nats?.stop();
  rmSync(storeDir, { recursive: true, force: true });
}, 60_000);

describe('a NATS outage', () => {
  it(
    `keeps ${SIGN_UPS} sign-ups working and delivers every welcome e-mail exactly once when NATS is back`,
    withLogs(
      () => e2e,
      async () => {
        if (!e2e || !nats) throw new Error('the stack did not start');
        const { smtp } = e2e;

        await nats.stop();
        natsUp = false;
        const customers = Array.from({ length: SIGN_UPS }, () => newCustomer('outage'));
        for (const customer of customers) {
          const response = await e2e.client().post(`${API}/auth/sign-up`, customer);
          expect({ email: customer.email, status: response.status }).toEqual({ email: customer.email, status: 201 });
        }
        expect(smtp.messages.filter((m) => customers.some((c) => m.to.includes(c.email)))).toHaveLength(0);

        nats = await startNatsServer({ storeDir, port, binary: NATS_SERVER_BIN });
        natsUp = true;
        const emails = new Set(customers.map((c) => c.email));
        const received = () => smtp.messages.filter((m) => m.to.some((to) => emails.has(to)));
        await waitFor(() => received().length >= SIGN_UPS, 60_000, 200);
        // a late duplicate would show up now
        await new Promise((r) => setTimeout(r, 2000));
        const perAddress = new Map<string, number>();
        for (const mail of received()) for (const to of mail.to) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
        expect([...perAddress.keys()].sort()).toEqual([...emails].sort());
        expect([...perAddress.values()].every((count) => count === 1)).toBe(true);
      },
    ),
    150_000,
  );
});
