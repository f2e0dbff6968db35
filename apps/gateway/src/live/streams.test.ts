/** LiveStream on a real HTTP server and real client sockets: heartbeats, idle close, a client that never reads; the registry's limits. */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { silentLog, uniqueNamespace, waitFor } from '@pasar/testkit';
import { LimiterStore } from '../http/limiter-store';
import { StreamSlots } from './stream-slots';
import { LiveStream, LiveStreamRegistry, type CloseReason, type LiveStreamLimits, type StreamSlot } from './streams';

const OWNER = { userId: 'u1', tokenHash: 't1' };

interface Harness {
  server: Server;
  port: number;
  streams: LiveStream[];
  reasons: CloseReason[];
}

async function serve(limits: LiveStreamLimits): Promise<Harness> {
  const harness: Harness = { server: undefined as unknown as Server, port: 0, streams: [], reasons: [] };
  harness.server = createServer((_req, res) => {
    const stream = new LiveStream(res, limits, OWNER, { CHECKOUT: 0, VENDOR: 0 });
    stream.onClose((reason) => harness.reasons.push(reason));
    stream.open();
    harness.streams.push(stream);
  });
  await new Promise<void>((resolve) => harness.server.listen(0, '127.0.0.1', resolve));
  harness.port = (harness.server.address() as AddressInfo).port;
  return harness;
}

/** A raw client that sends the request line and then reads (or not). */
function rawClient(port: number, read: boolean): { socket: Socket; received: () => string; closed: () => boolean } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let closed = false;
  socket.write('GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
  if (read) socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  else socket.pause();
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  return { socket, received: () => text, closed: () => closed };
}

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function start(limits: LiveStreamLimits, read: boolean) {
  const harness = await serve(limits);
  servers.push(harness.server);
  const client = rawClient(harness.port, read);
  sockets.push(client.socket);
  await waitFor(() => harness.streams.length === 1, 10_000);
  return { harness, client, stream: harness.streams[0] };
}

describe('LiveStream', () => {
  it('answers with the event-stream headers, the retry preamble and events with ids', async () => {
    const { client, stream } = await start({ heartbeatMs: 60_000, idleMs: 60_000, maxBufferBytes: 1 << 20 }, true);
    stream.send('payment', { orderId: 'o' }, { CHECKOUT: 5, VENDOR: 2 });
    await waitFor(() => client.received().includes('event: payment'), 10_000);
    const text = client.received().toLowerCase();
    expect(text).toContain('content-type: text/event-stream');
    expect(text).toContain('cache-control: no-cache, no-transform');
    expect(text).toContain('x-accel-buffering: no');
    expect(text).not.toContain('content-encoding');
    expect(client.received()).toContain('retry: 3000\n\n');
    expect(client.received()).toContain('event: payment\nid: 5-2\ndata: {"orderId":"o"}\n\n');
    expect(stream.position).toEqual({ CHECKOUT: 5, VENDOR: 2 });
  });

  it('beats with a comment line', async () => {
    const { client } = await start({ heartbeatMs: 50, idleMs: 60_000, maxBufferBytes: 1 << 20 }, true);
    await waitFor(() => client.received().split(':\n\n').length > 3, 10_000);
  });

  it('closes a stream that carried no event for the idle time (heartbeats do not count)', async () => {
    const { harness, client } = await start({ heartbeatMs: 20, idleMs: 300, maxBufferBytes: 1 << 20 }, true);
    await waitFor(() => harness.reasons.includes('idle'), 10_000);
    await waitFor(() => client.closed() || client.received().endsWith('0\r\n\r\n'), 10_000);
  });

  it('ends with an end event carrying the last id', async () => {
    const { harness, client, stream } = await start({ heartbeatMs: 60_000, idleMs: 60_000, maxBufferBytes: 1 << 20 }, true);
    stream.send('order.status', { status: 'delivered' }, { CHECKOUT: 9, VENDOR: 3 });
    stream.end({ reason: 'final_status' });
    await waitFor(() => client.received().includes('event: end\nid: 9-3\ndata: {"reason":"final_status"}'), 10_000);
    expect(harness.reasons).toEqual(['ended']);
    stream.send('order.status', { status: 'late' }, { CHECKOUT: 10, VENDOR: 3 });
    expect(stream.position).toEqual({ CHECKOUT: 9, VENDOR: 3 });
  });

  it('drops a client that never reads once its unread bytes pass the bound', async () => {
    const { harness, client, stream } = await start({ heartbeatMs: 60_000, idleMs: 60_000, maxBufferBytes: 64 * 1024 }, false);
    const payload = { filler: 'x'.repeat(8 * 1024) };
    // far more than the socket buffers of both ends take: the rest waits in the response, then the bound trips
    for (let i = 0; i < 5_000 && !stream.closed; i += 1) {
      stream.send('shipment.status', payload, { CHECKOUT: i + 1, VENDOR: 0 });
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(stream.closed).toBe(true);
    expect(harness.reasons).toEqual(['slow_client']);
    // the connection is gone: a client that reads again only gets what was in flight, then the close
    client.socket.resume();
    await waitFor(() => client.closed(), 10_000);
  });

  it('closes at once when the client left before the stream opened (a slow snapshot)', async () => {
    const reasons: CloseReason[] = [];
    const server = createServer((_req, res) => {
      res.on('close', () => {
        const stream = new LiveStream(res, { heartbeatMs: 60_000, idleMs: 60_000, maxBufferBytes: 1 << 20 }, OWNER, { CHECKOUT: 0, VENDOR: 0 });
        stream.onClose((reason) => reasons.push(reason));
        stream.open();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = rawClient((server.address() as AddressInfo).port, true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.socket.destroy();
    await waitFor(() => reasons.length > 0, 10_000);
    expect(reasons).toEqual(['client_gone']);
  });

  it('notices a client that went away', async () => {
    const { harness, client } = await start({ heartbeatMs: 60_000, idleMs: 60_000, maxBufferBytes: 1 << 20 }, true);
    client.socket.destroy();
    await waitFor(() => harness.reasons.includes('client_gone'), 10_000);
  });
});

describe('LiveStreamRegistry', () => {
  const store = LimiterStore.create({ REDIS_URL: undefined, NATS_NAMESPACE: uniqueNamespace('reg') }, silentLog);
  const registryOf = (maxPerUser: number) => new LiveStreamRegistry(new StreamSlots({ maxPerUser, leaseMs: 60_000, store, log: silentLog }));

  it('gives a user at most its limit of slots, and one back when released', async () => {
    const registry = registryOf(2);
    const a = await registry.reserve('u1');
    const b = await registry.reserve('u1');
    expect(a && b).toBeTruthy();
    expect(await registry.reserve('u1')).toBeUndefined();
    expect(await registry.reserve('u2')).toBeDefined();
    registry.release(a as StreamSlot);
    expect(await registry.reserve('u1')).toBeDefined();
  });

  it('closes the streams of a revoked session or user, and frees their slots', async () => {
    const limits = { heartbeatMs: 60_000, idleMs: 60_000, maxBufferBytes: 1 << 20 };
    const registry = registryOf(1);
    const { stream, harness } = await start(limits, true);
    const slot = (await registry.reserve(OWNER.userId)) as StreamSlot;
    registry.attach(slot, stream);
    expect(registry.size).toBe(1);
    registry.revoke({ tokenHashes: ['another'] });
    expect(stream.closed).toBe(false);
    registry.revoke({ tokenHashes: [OWNER.tokenHash] });
    expect(stream.closed).toBe(true);
    expect(harness.reasons).toEqual(['signed_out']);
    expect(registry.size).toBe(0);
    expect(await registry.reserve(OWNER.userId)).toBeDefined();
  });
});
