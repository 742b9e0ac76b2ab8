import { writeSync } from 'node:fs';
import { EXIT } from './io.js';

/**
 * Watches for code the command loaded (a project file) ending the process from under it —
 * `process.exit(0)` in tierflow.config.ts — which would otherwise leave `up` exited 0 with
 * nothing running, or a worker restarted for ever. While armed, such an exit is reported on
 * stderr as `message(code)` says and turned into exit status 2 (cannot run as configured), which
 * `up` takes as a configuration error; a null message leaves the exit as it is. Returns the
 * disarm for the command's own way out.
 */
export function guardExit(message: (code: number) => string | null): () => void {
  const onExit = (code: number): void => {
    const text = message(code);
    // Nothing to say: an exit that already says it failed (an uncaught error, say) is left as it is.
    if (text === null) return;
    // Synchronous: nothing asynchronous runs once the process is exiting.
    try {
      writeSync(2, text);
    } catch {
      // Nowhere to say it: the status still says it.
    }
    process.exitCode = EXIT.unusable;
  };
  process.once('exit', onExit);
  return () => process.off('exit', onExit);
}
