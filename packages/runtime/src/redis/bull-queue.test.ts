import { startRedisServer, waitFor } from '@tierflow/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bullQueue } from './bull-queue.js';
import { connect } from './connection.js';

describe('a queue on a connection of ours', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints nothing of its own while Redis is away: the connection reports the outage', async () => {
    const server = await startRedisServer();
    const warnings: string[] = [];
    const redis = connect(server.url, (message) => warnings.push(message));
    const queue = bullQueue('fleet', redis, '{away}');
    let failures = 0;
    redis.on('error', () => failures++);
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await queue.getJobCounts();
      await server.kill();
      // Each failed reconnect is an error the queue passes on.
      await waitFor(() => failures >= 3 && warnings.length >= 1, { timeoutMs: 10_000, description: 'reconnects to fail, and the outage to be reported' });
      // Unit test files share their process: a client another file left behind may print of its
      // own server; nothing may print of this one's.
      const port = new URL(server.url).port;
      expect(printed.mock.calls.filter((call) => call.some((part) => String(part).includes(`:${port}`)))).toEqual([]);
    } finally {
      await queue.close().catch(() => undefined);
      redis.disconnect();
    }
  });
});
