import { readFileSync } from 'node:fs';

// Clock ticks per second for /proc/<pid>/stat: 100 on Linux (USER_HZ), whatever the kernel's HZ.
const TICKS_PER_SECOND = 100;

/** CPU time a process has used so far (user + system), in microseconds, from /proc/<pid>/stat (Linux). */
export function cpuMicrosOf(pid: number): number {
  // Fields after the command name, which is in parentheses and may hold spaces: utime is the 14th field, stime the 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
}

/** The CPU time of all `pids` together, in microseconds. */
export function totalCpuMicros(pids: readonly number[]): number {
  return pids.reduce((total, pid) => total + cpuMicrosOf(pid), 0);
}
