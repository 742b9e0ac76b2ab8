import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { startFleetHarness } from './fleet-harness.js';
import type { TierHandler } from '../policy/handler.js';
import { buildDelegation } from '../messages/messages.js';
import { resolveRuntimeOptions } from '../config/options.js';

// The nested fan-out guard (docs/protocol.md#nested-fan-out-guard): the lowest tier executes, it
// never delegates.
const db = usePrivateRedis();

describe('a Fleet handler that tries to delegate', () => {
  it('is refused: the outcome is failed, not retried, and nothing is delegated', async () => {
    const runtime = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('guard') });
    const nested: TierHandler = {
      tier: 'SPECIALIZED_FLEET',
      start: () => Promise.resolve({ kind: 'delegate', strategy: 'all_success', children: [{ task_type: 'deeper', objective: 'fan out again' }] }),
    };
    const harness = await startFleetHarness(nested, runtime);
    try {
      const message = buildDelegation('ROUTING_DISPATCHER', 'nested-1', null, { task_type: 'general', objective: 'x' }, Date.now());
      const outcome = await harness.send(message);
      expect(outcome.payload).toMatchObject({ status: 'failed', recoverable: false });
      expect(String(outcome.payload.error_detail)).toMatch(/cannot delegate/);
      expect((await harness.fleet.getJob(message.id))?.attemptsMade).toBe(1);
      expect(await harness.redis.keys(`${runtime.prefix}:*:nested-1.0-0`)).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});
