import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Sends `signal` and waits for the exit; a process ignoring it gets SIGKILL after `killAfterMs`. */
export async function terminate(child: ChildProcess, signal: NodeJS.Signals, killAfterMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process with this pid is alive (signal 0 reaches it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
