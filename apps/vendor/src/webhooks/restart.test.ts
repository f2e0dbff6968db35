import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createPrisma, createTestSchema } from '@pasar/db';
import { createTestBus, startReceiver, testServiceEnv, waitFor, type Receiver, type TestBus } from '@pasar/testkit';
import request from 'supertest';
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
const output: string[] = [];

async function startVendorProcess(): Promise<{ child: ChildProcess; url: string }> {
  const env = {
    ...process.env,
    ...testServiceEnv(db.databaseUrl, peer.namespace),
    LOG_LEVEL: 'info',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_POLL_MS: '100',
  };
  // node itself with tsx's loader (not the tsx CLI, which runs the service in a child a SIGKILL would miss)
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let url: string | undefined;
  // its address from its "vendor listening" line (port 0: no race for a port); its last lines, printed when the test fails
  const keep = (chunk: Buffer) => {
    const lines = chunk.toString('utf8').split('\n').filter(Boolean);
    for (const line of lines) url ??= /"url":"(http:\/\/[^"]+)".*vendor listening/.exec(line)?.[1];
    output.push(...lines.filter((line) => !line.includes('"level":30')).slice(-20));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const listening = await waitFor(() => url ?? (child.exitCode !== null ? 'exited' : undefined), 180_000, 250);
  if (listening === 'exited') throw new Error(`the vendor process exited:\n${output.slice(-20).join('\n')}`);
  await waitFor(async () => (await fetch(`${listening}/readyz`)).ok, 60_000, 250);
  return { child, url: listening };
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
    // the delivery is leased to the first instance and its request open when it dies
    const inFlight = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
    expect(inFlight).toMatchObject({ status: 'pending', attempts: 1 });
    expect(inFlight.claimedUntil?.getTime()).toBeGreaterThan(Date.now());
    await kill(first.child, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    // the killed process was the service itself (no CLI wrapper whose child would live on): it no longer answers
    await expect(fetch(`${first.url}/readyz`)).rejects.toThrow();

    await startVendorProcess();
    // after the lease (timeout + 5 s) the second instance claims it again
    await waitFor(() => receiver.received.length >= 2, 120_000, 100);
    const delivery = await waitFor(async () => {
      const row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId }, include: { attemptLog: { orderBy: { id: 'asc' } } } });
      return row.status === 'delivered' && row;
    }, 30_000);
    // every request of the delivery carried its one webhook-id; the last attempt was the answered one
    // (on a busy machine the killed instance may have recorded its own attempt's timeout first)
    expect(new Set(receiver.received.map((m) => m.headers['webhook-id'])).size).toBe(1);
    expect(delivery.attemptLog.at(-1)?.httpStatus).toBe(200);
    expect(delivery.attemptLog.slice(0, -1).every((a) => a.httpStatus === null)).toBe(true);
    // at most once more: the killed instance's request and the second instance's, nothing after
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received).toHaveLength(2);
  } catch (err) {
    throw new Error(`${String(err)}\n--- last lines of the vendor processes ---\n${output.slice(-30).join('\n')}`);
  } finally {
    await prisma.$disconnect();
  }
  // two service processes start on a machine that may be busy
}, 480_000);
