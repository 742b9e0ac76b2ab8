import type { Writable } from 'node:stream';

/**
 * Holds a socket's writes until the current burst of work is done, then sends them in one
 * writev: concurrent jobs each send a command or a MULTI at about the same moment, and one system
 * call (and one read on the server) for all of them costs less than one each. Order is kept.
 */
export function coalesceWrites(socket: Writable): void {
  if (COALESCING in socket) return;
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  Object.defineProperty(socket, COALESCING, { value: true });
  socket.write = ((...args: unknown[]): boolean => {
    if (!corked) {
      corked = true;
      socket.cork();
      // After the promise continuations queued now, which are the other jobs' next commands.
      process.nextTick(uncork);
    }
    return write(...args);
  }) as Writable['write'];
}

const COALESCING = Symbol('tierflow.coalescing');
