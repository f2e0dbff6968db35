/**
 * Stream replicas on a real three-server NATS cluster with JetStream (what the production overlay
 * runs from the NATS Helm chart): the streams are R3 when asked, and a later start asking the
 * same keeps them R3 (each start updates every stream to its config).
 */
import pino from 'pino';
import { connectWhenJetStreamAnswers, startNatsCluster, TEST_NATS_URL, uniqueNamespace, waitFor, type NatsCluster } from '@pasar/testkit';
import { Bus } from './bus';
import { deleteNamespaceStreams, ensureStreams } from './streams';

type LogLine = { level: number; msg: string; stream?: string; replicas?: number; configured?: number };
/** A logger whose lines land in `lines`. */
const capturingLog = (lines: LogLine[]) => pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });

describe('ensureStreams replicas (R3 JetStream streams, docs/deploy.md)', () => {
  let cluster: NatsCluster;
  let bus: Bus;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    cluster = await startNatsCluster();
    const namespace = uniqueNamespace();
    // the cluster answers JetStream once it has elected its meta leader
    bus = await connectWhenJetStreamAnswers({ natsUrl: cluster.urls.join(','), namespace, service: 'streams-test', log: capturingLog(lines) });
  }, 120000);

  afterAll(async () => {
    await bus?.close();
    await cluster?.stop();
  });

  test('creates the streams with three replicas and keeps them at three when every start asks again', async () => {
    await waitFor(() => ensureStreams(bus, ['CHECKOUT', 'VENDOR'], { replicas: 3 }).then(() => true), 60000, 500);
    const jsm = await bus.jsm;
    for (const name of ['CHECKOUT', 'VENDOR'] as const) {
      const info = await jsm.streams.info(bus.naming.stream(name));
      expect({ name, replicas: info.config.num_replicas, peers: info.cluster?.replicas?.length }).toEqual({ name, replicas: 3, peers: 2 });
    }
    await ensureStreams(bus, ['CHECKOUT'], { replicas: 3 });
    expect((await jsm.streams.info(bus.naming.stream('CHECKOUT'))).config.num_replicas).toBe(3);
  }, 90000);

  test('without the setting a stream has one replica, so NATS_STREAM_REPLICAS must be set on a cluster', async () => {
    await waitFor(() => ensureStreams(bus, ['ADMIN']).then(() => true), 60000, 500);
    const jsm = await bus.jsm;
    expect((await jsm.streams.info(bus.naming.stream('ADMIN'))).config.num_replicas).toBe(1);
  }, 90000);

  test('a service asking three replicas of a stream that has one names it in a warning at start, and scales it up', async () => {
    const stream = bus.naming.stream('B2B');
    await waitFor(() => ensureStreams(bus, ['B2B']).then(() => true), 60000, 500);
    lines.length = 0;
    await ensureStreams(bus, ['B2B'], { replicas: 3 });
    const named = lines.filter((line) => line.stream === stream);
    expect(named.map(({ level, replicas, configured }) => ({ level, replicas, configured }))).toEqual([
      { level: 40, replicas: 1, configured: 3 },
      { level: 30, replicas: 1, configured: 3 },
    ]);
    expect(named[0].msg).toBe(`stream ${stream} has 1 replica(s), fewer than the 3 configured (NATS_STREAM_REPLICAS): scaling it up`);
    expect(named[1].msg).toBe(`stream ${stream} now has 3 replicas`);
    const info = await (await bus.jsm).streams.info(stream);
    expect(info.config.num_replicas).toBe(3);
    // its copies on the other servers (while the scale-up settles the list can name one more)
    expect(info.cluster?.replicas?.length).toBeGreaterThanOrEqual(2);
  }, 90000);
});

describe('ensureStreams on a stream with fewer replicas than configured (the local single NATS server)', () => {
  test('warns naming the stream, keeps it at one replica and starts', async () => {
    const lines: LogLine[] = [];
    const bus = await Bus.connect({ natsUrl: TEST_NATS_URL, namespace: uniqueNamespace(), service: 'streams-test', log: capturingLog(lines) });
    try {
      await ensureStreams(bus, ['CHECKOUT']);
      expect(lines).toEqual([]);

      await expect(ensureStreams(bus, ['CHECKOUT'], { replicas: 3 })).resolves.toBeUndefined();
      const stream = bus.naming.stream('CHECKOUT');
      const warnings = lines.filter((line) => line.level === 40 && line.stream === stream);
      expect(warnings[0]).toMatchObject({ stream, replicas: 1, configured: 3, msg: expect.stringContaining(`stream ${stream} has 1 replica(s)`) });
      expect(warnings.at(-1)?.msg).toContain(`stream ${stream} stays at 1 replica(s)`);
      // one copy: a single server has no cluster peers to put the others on
      expect((await (await bus.jsm).streams.info(stream)).cluster?.replicas ?? []).toEqual([]);
      // and says so again at the next start
      lines.length = 0;
      await ensureStreams(bus, ['CHECKOUT'], { replicas: 3 });
      expect(lines.filter((line) => line.level === 40 && line.stream === stream)).toHaveLength(2);
    } finally {
      await deleteNamespaceStreams(bus);
      await bus.close();
    }
  }, 60000);
});
