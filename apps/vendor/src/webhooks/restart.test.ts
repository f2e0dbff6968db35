import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createPrisma, createTestSchema } from '@pasar/db';
import { createTestBus, freePort, testServiceEnv, waitFor, type TestBus } from '@pasar/testkit';
import request from 'supertest';
import { startReceiver, type Receiver } from '../../test/receiver';
import { asVendor } from '../../test/vendor';
import { PrismaClient } from '../generated/prisma/client';

/**
 * A vendor instance killed (SIGKILL) while a delivery's request is open: another instance sends it
 * once the attempt's lease ends, with the same webhook-id, and it ends delivered. Real processes.
 */
const db = createTestSchema(undefined, 'vendor');
let peer: TestBus;
let receiver: Receiver;
const children: ChildProcess[] = [];

async function startVendorProcess(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env = {
    ...process.env,
    ...testServiceEnv(db.databaseUrl, peer.namespace),
    PORT: String(port),
    LOG_LEVEL: 'warn',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_POLL_MS: '100',
  };
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), join(__dirname, '..', 'main.ts')], { env, stdio: 'ignore' });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`)).ok, 180_000, 250);
  return { child, url };
}

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

beforeAll(async () => {
  peer = await createTestBus('peer');
  receiver = await startReceiver();
});
afterAll(async () => {
  await Promise.all(children.map((child) => kill(child, 'SIGKILL')));
  await receiver?.close();
  await peer?.close();
  await db.drop();
});

test('a delivery in flight when its instance dies is completed by another, once, with the same webhook-id', async () => {
  const first = await startVendorProcess();
  const prisma = createPrisma(PrismaClient, db.databaseUrl);
  try {
    // one plain insert (what the application approval's createStore writes, less its event)
    const ownerUserId = randomUUID();
    await prisma.store.create({
      data: {
        applicationId: randomUUID(), ownerUserId, name: 'Kedai Restart', slug: `kedai-${ownerUserId}`, tin: 'C0012345678', msicCode: '47711',
        bankName: 'Maybank', bankAccountNumber: '112233445566', bankAccountName: 'Kedai Restart', consentAccepted: true,
      },
    });
    const vendor = asVendor(ownerUserId);
    const created = await request(first.url).post('/api/v1/vendor/webhooks').set(vendor).send({ url: receiver.url, events: ['sub_order.paid'] }).expect(201);
    const endpointId = (created.body as { id: string }).id;

    receiver.answers.push('hold');
    const ping = await request(first.url).post(`/api/v1/vendor/webhooks/${endpointId}/test`).set(vendor).expect(201);
    const deliveryId = (ping.body as { id: string }).id;
    await waitFor(() => receiver.received.length === 1, 30_000);
    await kill(first.child, 'SIGKILL');

    await startVendorProcess();
    await waitFor(() => receiver.received.length === 2, 60_000, 100);
    const delivery = await waitFor(async () => {
      const row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId }, include: { attemptLog: true } });
      return row.status === 'delivered' && row;
    }, 30_000);
    expect(receiver.received[1].headers['webhook-id']).toBe(receiver.received[0].headers['webhook-id']);
    // the killed attempt never recorded an answer; the second one did
    expect(delivery.attempts).toBe(2);
    expect(delivery.attemptLog.map((a) => a.httpStatus)).toEqual([200]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received).toHaveLength(2);
  } finally {
    await prisma.$disconnect();
  }
  // two service processes start on a machine that may be busy
}, 480_000);
