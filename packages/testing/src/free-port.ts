import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago: the OS picks one for a listener on port 0, which is
 * then closed. Someone else may take it before we use it, so callers retry on "address in use".
 */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error(`unexpected listener address ${String(address)}`);
  return address.port;
}
