import { readdirSync, readFileSync } from 'node:fs';

// Clock ticks per second for /proc/<pid>/stat: 100 on Linux (USER_HZ), whatever the kernel's HZ.
const TICKS_PER_SECOND = 100;

/** CPU time a process has used so far (user + system), in microseconds, from /proc/<pid>/stat (Linux). */
export function cpuMicrosOf(pid: number): number {
  return (ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) / TICKS_PER_SECOND) * 1e6;
}

/** The CPU time of all `pids` together, in microseconds. */
export function totalCpuMicros(pids: readonly number[]): number {
  return pids.reduce((total, pid) => total + cpuMicrosOf(pid), 0);
}

/**
 * The CPU time of the threads of `pids` other than their main threads, in microseconds: in a Node
 * process, V8's helper threads (the optimizing compiler, concurrent and parallel collection).
 * A thread that ended since the last reading takes its time with it.
 */
export function backgroundCpuMicros(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      if (thread !== String(pid)) total += threadTicks(`/proc/${pid}/task/${thread}/stat`);
    }
  }
  return (total / TICKS_PER_SECOND) * 1e6;
}

function threadTicks(path: string): number {
  try {
    return ticksOf(readFileSync(path, 'utf8'));
  } catch {
    // The thread ended between the listing and the read.
    return 0;
  }
}

/** User + system clock ticks from a `stat` file's text. */
function ticksOf(stat: string): number {
  // Fields after the command name, which is in parentheses and may hold spaces: utime is the 14th field, stime the 15th.
  const fields = stat.split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
