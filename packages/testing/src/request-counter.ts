import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server on a free loopback port that counts the requests reaching it: what confined code must never reach. */
export interface RequestCounter {
  readonly port: number;
  /** Requests received so far. */
  readonly requests: () => number;
  close(): Promise<void>;
}

export async function startRequestCounter(): Promise<RequestCounter> {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests++;
    response.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
