import { connect } from 'node:net';

/**
 * Whether a Redis on this loopback port answers `PING` with `PONG`, over a bare socket: an ioredis
 * client would retry and log on its own while the server is still starting. A server loading its
 * append-only file answers `-LOADING`, which counts as not ready.
 */
export async function pingRedis(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('close', () => done(false));
  });
}
