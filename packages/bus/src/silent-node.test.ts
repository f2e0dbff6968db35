/**
 * A NATS node that vanishes without closing its connections (its container's network torn down,
 * its host lost; here a frozen nats-server, on a real three-server cluster): the bus notices by its
 * PINGs and reconnects to another node within seconds, not after the client's default 2 x 2 minutes.
 */
import { connectWhenJetStreamAnswers, silentLog, startNatsCluster, uniqueNamespace, waitFor, type NatsCluster } from '@pasar/testkit';
import { Bus } from './bus';

let cluster: NatsCluster;
let bus: Bus | undefined;

beforeAll(async () => {
  cluster = await startNatsCluster();
  // the cluster answers JetStream once it has elected its meta leader
  const namespace = uniqueNamespace();
  bus = await connectWhenJetStreamAnswers({ natsUrl: cluster.urls.join(','), namespace, service: 'silent-node', log: silentLog });
}, 90000);

afterAll(async () => {
  await bus?.close();
  await cluster?.stop();
});

test('the node a bus is connected to stops answering without closing the connection: the bus moves to another node', async () => {
  if (!bus) throw new Error('no bus');
  const first = bus.nc.getServer();
  const index = cluster.urls.findIndex((url) => new URL(url).host === first);
  expect(index).toBeGreaterThanOrEqual(0);
  cluster.pauseNode(index);
  try {
    // the connection looks open: only the unanswered PINGs tell (3 s apart, dropped at the third)
    await waitFor(() => bus !== undefined && bus.isConnected() && bus.nc.getServer() !== first, 25000, 200);
    await bus.nc.flush(); // a round trip through the other node
    expect(cluster.urls.map((url) => new URL(url).host)).toContain(bus.nc.getServer());
  } finally {
    cluster.resumeNode(index);
  }
}, 60000);
