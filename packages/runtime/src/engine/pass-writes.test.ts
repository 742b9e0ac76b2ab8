import { BeadsStore } from '@tierflow/beads';
import { TierflowError } from '@tierflow/protocol';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { startFleetHarness } from './fleet-harness.js';
import type { TierHandler } from '../policy/handler.js';
import { buildDelegation } from '../messages/messages.js';
import { resolveRuntimeOptions } from '../config/options.js';

// A pass's Beads writes wait for the MULTI that sends its outcome: they land with it, or not at all.
const db = usePrivateRedis();

describe("a policy's Beads writes", () => {
  it('land with the outcome of the pass that made them; a pass that ends in a retry writes none', async () => {
    const runtime = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('pass-writes'), retry: { attempts: 2, baseDelayMs: 10, jitter: 0 } });
    const readBack: unknown[] = [];
    const flaky: TierHandler = {
      tier: 'SPECIALIZED_FLEET',
      start: async (context) => {
        const { id } = context.assignment;
        await context.beads.set(`execution/outputs/${id}`, { attempt: context.attempt });
        await context.beads.set(`execution/logs/${id}/attempt-${context.attempt}`, 'ran');
        // The pass reads its own writes before they are sent.
        readBack.push(await context.beads.get(`execution/outputs/${id}`));
        if (context.attempt === 1) throw TierflowError.retryable('a transient failure after writing');
        return { kind: 'outcome', outcome: { status: 'success', summary: 'done', confidence: 1 } };
      },
    };
    const harness = await startFleetHarness(flaky, runtime);
    const beads = new BeadsStore(harness.redis, { tier: 'SPECIALIZED_FLEET', prefix: runtime.prefix });
    try {
      const message = buildDelegation('ROUTING_DISPATCHER', 'writes-1', null, { task_type: 'general', objective: 'x' }, Date.now());
      const outcome = await harness.send(message);
      expect(outcome.payload.status).toBe('success');
      expect(readBack).toEqual([{ attempt: 1 }, { attempt: 2 }]);
      expect(await beads.get('execution/outputs/writes-1')).toEqual({ attempt: 2 });
      expect(await beads.get('execution/logs/writes-1/attempt-2')).toBe('ran');
      expect(await beads.get('execution/logs/writes-1/attempt-1')).toBeNull();
    } finally {
      await harness.close();
    }
  });
});
