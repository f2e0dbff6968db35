import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@pasar/testkit';
import { NATS_INSTALL_HINT, NatsServerMissingError, startNatsServer } from './nats';
import { findOnPath, natsAddress, probeNats } from './probes';

describe('nats-server from PATH', () => {
  let storeDir: string;
  beforeAll(() => {
    storeDir = mkdtempSync(join(tmpdir(), 'pasar-nats-'));
  });
  afterAll(() => rmSync(storeDir, { recursive: true, force: true }));

  it('starts with JetStream on the port and stops', async () => {
    const port = await freePort();
    const nats = await startNatsServer({ storeDir, port });
    try {
      expect(nats.url).toBe(`nats://127.0.0.1:${port}`);
      expect(await probeNats(nats.url)).toEqual({ ok: true });
    } finally {
      await nats.stop();
    }
    expect((await probeNats(nats.url, 500)).ok).toBe(false);
  });

  it('says how to get one when it is missing', async () => {
    expect(findOnPath('nats-server', '/nonexistent-dir')).toBeUndefined();
    expect(NATS_INSTALL_HINT).toContain('apt-get install nats-server');
    await expect(startNatsServer({ storeDir, binary: '/nonexistent-dir/nats-server' })).rejects.toThrow('could not be started');
    await expect(startNatsServer({ storeDir, binary: 'no-such-nats-server' })).rejects.toBeInstanceOf(NatsServerMissingError);
  });

  it('reads host and port from NATS URLs', () => {
    expect(natsAddress('nats://127.0.0.1:4222')).toEqual({ host: '127.0.0.1', port: 4222 });
    expect(natsAddress('nats://user:pw@nats.local,nats://other:5222')).toEqual({ host: 'nats.local', port: 4222 });
    expect(natsAddress('localhost:6222')).toEqual({ host: 'localhost', port: 6222 });
  });
});
