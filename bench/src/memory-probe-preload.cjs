/**
 * Preloaded into a service by a scenario (`NODE_OPTIONS=--require <this file>`) with
 * BENCH_MEMORY_PROBE_SOCKET=<path>: answers any request on that unix socket, after a full garbage
 * collection, with the process's memory in KiB ({ rssKiB, heapUsedKiB, heapTotalKiB, externalKiB }).
 * So the bench reads what the process holds (e.g. its open streams) without the garbage that
 * opening them left, which V8 collects when it sees fit: read right after a burst of work, RSS
 * holds anything from none of that garbage to all of it.
 */
const { createServer } = require('node:http');
const { readFileSync, rmSync } = require('node:fs');
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');
const { isMainThread } = require('node:worker_threads');

const socket = process.env.BENCH_MEMORY_PROBE_SOCKET;
// NODE_OPTIONS preloads run in tsx's module-hooks thread too: the probe belongs to the main thread
if (socket && isMainThread) {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const kib = (bytes) => Math.round(bytes / 1024);
  rmSync(socket, { force: true });
  const server = createServer((req, res) => {
    gc();
    const memory = process.memoryUsage();
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? kib(memory.rss));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ rssKiB, heapUsedKiB: kib(memory.heapUsed), heapTotalKiB: kib(memory.heapTotal), externalKiB: kib(memory.external) }));
  });
  server.listen(socket);
  // the probe never keeps the service alive, and its socket file goes with the process
  server.unref();
  process.once('exit', () => rmSync(socket, { force: true }));
}
