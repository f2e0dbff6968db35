/**
 * Preloaded into a service (`NODE_OPTIONS=--require <this file>`, as `--cpu-prof` is not allowed
 * in NODE_OPTIONS) when the bench runs with BENCH_CPU_PROF_DIR: profiles the process with the
 * in-process inspector and writes `<BENCH_CPU_PROF_DIR>/<pid>.cpuprofile`.
 *
 * By default the whole process is profiled (written when it exits). With BENCH_CPU_PROF_WINDOW=1
 * nothing is profiled until the process gets SIGUSR2; the next SIGUSR2 writes
 * `<pid>-<n>.cpuprofile` for that window alone, so a profile holds just a measured load round.
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
  let running = false;
  let windows = 0;
  const start = () => {
    session.post('Profiler.start');
    running = true;
  };
  const write = (name) => {
    running = false;
    // an in-thread session answers synchronously, so this completes before the process ends
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), JSON.stringify(result.profile));
    });
  };
  if (process.env.BENCH_CPU_PROF_WINDOW) {
    process.on('SIGUSR2', () => (running ? write(`${process.pid}-${++windows}.cpuprofile`) : start()));
  } else {
    start();
    process.on('exit', () => running && write(`${process.pid}.cpuprofile`));
  }
}
