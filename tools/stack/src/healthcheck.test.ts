/**
 * scripts/healthcheck.sh, the images' HEALTHCHECK (bash's /dev/tcp, no node per check): run with
 * bash against real HTTP listeners, as the containers run it.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { freePorts } from '@pasar/testkit';

const SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'healthcheck.sh');

/** Runs the check with `env` (and no METRICS_PORT / PASAR_APP unless given): its exit code. */
const check = (env: Record<string, string>) =>
  new Promise<number | null>((resolve) => spawn('bash', [SCRIPT], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' }).once('exit', resolve));

describe('scripts/healthcheck.sh', () => {
  const asked: string[] = [];
  let status = 200;
  let servers: Server[] = [];
  let port: number;
  let metricsPort: number;
  let closedPort: number;

  beforeAll(async () => {
    [port, metricsPort, closedPort] = await freePorts(3);
    servers = [port, metricsPort].map((p) =>
      createServer((req, res) => {
        asked.push(`${p}${req.url}`);
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      }).listen(p, '127.0.0.1'),
    );
    await Promise.all(servers.map((s) => new Promise((resolve) => (s.listening ? resolve(undefined) : s.once('listening', resolve)))));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });
  beforeEach(() => {
    asked.length = 0;
    status = 200;
  });

  test('a service: GET /readyz on PORT, healthy on 200', async () => {
    expect(await check({ PORT: String(port), PASAR_APP: 'checkout' })).toBe(0);
    expect(asked).toEqual([`${port}/readyz`]);
  });

  test('unhealthy on a 503 (not ready) and when nothing listens', async () => {
    status = 503;
    expect(await check({ PORT: String(port), PASAR_APP: 'checkout' })).toBe(1);
    expect(await check({ PORT: String(closedPort), PASAR_APP: 'checkout' })).toBe(1);
  });

  test('the gateway: /readyz on its internal METRICS_PORT, /healthz on PORT when it has none', async () => {
    expect(await check({ PORT: String(port), METRICS_PORT: String(metricsPort), PASAR_APP: 'gateway' })).toBe(0);
    expect(await check({ PORT: String(port), PASAR_APP: 'gateway' })).toBe(0);
    expect(asked).toEqual([`${metricsPort}/readyz`, `${port}/healthz`]);
  });
});
