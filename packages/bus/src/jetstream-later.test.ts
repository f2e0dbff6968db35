/**
 * A bus connected while JetStream cannot answer (a cluster still electing its meta leader; here a
 * nats-server started without JetStream, then again with it on the same port) uses JetStream once
 * it answers: the failed ask for the account's info is not kept for the life of the process.
 */
import { silentLog, startOwnNatsServer, uniqueNamespace, waitFor, type OwnNatsServer } from '@pasar/testkit';
import { Bus } from './bus';

let server: OwnNatsServer | undefined;
let bus: Bus | undefined;

afterAll(async () => {
  await bus?.close();
  await server?.destroy();
});

test('a bus whose first JetStream ask failed asks again, and works once JetStream answers', async () => {
  const nats = await startOwnNatsServer({ jetStream: false });
  server = nats;
  const connected = await Bus.connect({ natsUrl: nats.url, namespace: uniqueNamespace(), service: 'jetstream-later', log: silentLog });
  bus = connected;
  await expect(connected.jsm).rejects.toThrow();
  await expect(connected.jsm).rejects.toThrow(); // asked again, and refused again

  await nats.stop();
  await nats.start({ jetStream: true });
  const info = await waitFor(async () => (await connected.jsm).getAccountInfo(), 20000, 200);
  expect(info.streams).toBe(0);
}, 40000);
