import { EXIT } from './io.js';

let installed = false;

/**
 * `tierflow watch | head -1`: once the reader is gone, every write meets EPIPE, and Node throws
 * it as an unhandled stream error, stack and all. Whoever closed the pipe has read all it wanted,
 * so the command ends there, quietly, with status 0. Other stream errors are thrown as before.
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  if (installed) return;
  installed = true;
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(EXIT.ok);
    });
  }
}
