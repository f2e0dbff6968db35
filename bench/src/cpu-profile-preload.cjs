/**
 * Preloaded into a service (`NODE_OPTIONS=--require <this file>`, as `--cpu-prof` is not allowed
 * in NODE_OPTIONS) when the bench runs with BENCH_CPU_PROF_DIR: profiles the whole process with
 * the in-process inspector and writes `<BENCH_CPU_PROF_DIR>/<pid>.cpuprofile` when it exits.
 */
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // an in-thread session answers synchronously, so this completes before the process ends
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
