import { type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

// Servers still running and temporary directories not yet removed, to clean up when the process exits.
const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let hooked = false;

function hook(): void {
  if (hooked) return;
  hooked = true;
  // 'exit' handlers must be synchronous: SIGKILL and rmSync are.
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
}

/** Kills `child` if it is still running when this process exits; forgets it once it exits itself. */
export function reapOnExit(child: ChildProcess): void {
  hook();
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Removes `dir` when this process exits, unless {@link forgetDir} is called first. */
export function removeOnExit(dir: string): void {
  hook();
  dirs.add(dir);
}

export function forgetDir(dir: string): void {
  dirs.delete(dir);
}
