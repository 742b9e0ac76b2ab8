import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { TestCertificates } from './certificates.js';

/**
 * Whether a Redis on this loopback port answers, over a bare socket: an ioredis client would
 * retry and log on its own while the server is still starting. `PONG` counts, and so does
 * `-NOAUTH` (a server whose default user is off is up all the same); a server loading its
 * append-only file answers `-LOADING`, which does not. With `tls`, it speaks TLS with the client
 * certificate.
 */
export async function pingRedis(port: number, timeoutMs = 1_000, tls?: TestCertificates): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket: Socket = tls
      ? connectTls({ host: '127.0.0.1', port, ca: readFileSync(tls.ca), cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey) })
      : connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
    socket.once('close', () => done(false));
  });
}
