import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { round } from '../stats';
import type { Scenario, ScenarioResult } from '../types';

const BACK_TO_BACK = 5000;
const PACED = 400;
const PACE_MS = 5;

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(message);
  });
}

/** One round trip: a byte out, its echo back. */
function roundTrip(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.once('data', () => resolve());
    socket.write('x');
  });
}

/** Round trips to the echo child: back to back, or with a pause between them; the child's CPU µs and the median round trip. */
async function measure(child: ChildProcess, socket: Socket, count: number, pauseMs: number) {
  const before = (await ask<{ cpuUs: number }>(child, 'cpu')).cpuUs;
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    const started = performance.now();
    await roundTrip(socket);
    times.push(performance.now() - started);
  }
  const after = (await ask<{ cpuUs: number }>(child, 'cpu')).cpuUs;
  times.sort((a, b) => a - b);
  return { cpuUsPerRoundTrip: round((after - before) / count, 1), roundTripP50Us: round(times[Math.floor(count / 2)] * 1000, 1) };
}

/**
 * What the machine charges a process for being woken: a Node echo server's CPU time per round trip
 * over loopback TCP, back to back (it never sleeps) and paced every 5 ms (it sleeps and is woken
 * each time). Context for the other figures: every hop of a request (gateway, service, database,
 * NATS) wakes a process, and where a wake-up costs several times the work, per-request CPU rises
 * as the load falls (like pgbench, it tells one machine from another).
 */
export const machine: Scenario = {
  name: 'machine',
  title: 'what a process wake-up costs here (echo over loopback TCP)',
  async run({ log }): Promise<ScenarioResult> {
    const child = fork(join(__dirname, '..', 'echo-server.cjs'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    try {
      const [{ port }] = (await once(child, 'message')) as [{ port: number }];
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.setNoDelay(true);
      try {
        await measure(child, socket, 500, 0); // warm-up
        log(`${BACK_TO_BACK} round trips back to back, ${PACED} paced every ${PACE_MS} ms`);
        const hot = await measure(child, socket, BACK_TO_BACK, 0);
        const paced = await measure(child, socket, PACED, PACE_MS);
        const row = (name: string, f: typeof hot) => ({
          scenario: 'machine',
          case: name,
          values: { 'cpu us/round trip': f.cpuUsPerRoundTrip, 'round trip p50 us': f.roundTripP50Us },
        });
        return {
          rows: [row('echo, back to back', hot), row(`echo, every ${PACE_MS} ms (woken each time)`, paced)],
          data: { backToBack: hot, paced: { ...paced, pauseMs: PACE_MS }, wakeUpCostUs: round(paced.cpuUsPerRoundTrip - hot.cpuUsPerRoundTrip, 1) },
        };
      } finally {
        socket.destroy();
      }
    } finally {
      child.send('stop');
      await once(child, 'exit');
    }
  },
};
