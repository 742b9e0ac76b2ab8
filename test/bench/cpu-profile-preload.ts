// Loaded into each worker by the profile bench (`node --import <this file>`): the first SIGUSR2
// starts an inspector CPU profile, the second writes it to
// $TIERFLOW_BENCH_PROFILE_DIR/<pid>.cpuprofile, so warm-up and start-up are left out.
import { renameSync, writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.TIERFLOW_BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    running = !running;
    if (running) {
      // 500 µs between samples: fine enough for functions that take tens of microseconds.
      session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')));
      return;
    }
    session.post('Profiler.stop', (error, result: Profiler.StopReturnType) => {
      const path = join(dir, `${process.pid}.cpuprofile`);
      // Written whole under a temporary name, then renamed: the bench waits for the final name.
      if (error) return;
      writeFileSync(`${path}.part`, JSON.stringify(result.profile));
      renameSync(`${path}.part`, path);
    });
  });
}
