import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { TierflowClient } from './client.js';
import { resolveRuntimeOptions } from '../config/options.js';

const db = usePrivateRedis();

function planOf(count: number): Record<string, unknown> {
  return { objective: 'many', task_data: { plan: { strategy: 'all_success', subtasks: Array.from({ length: count }, (_, index) => ({ objective: `s${index}` })) } } };
}

async function refusal(client: TierflowClient, objective: unknown): Promise<Error & { code?: string }> {
  try {
    await client.enqueue(objective);
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('enqueued');
}

describe('TierflowClient.enqueue', () => {
  it('refuses too many subtasks and too many bytes with input_too_large, naming the size, the limit and the variable, and enqueues nothing', async () => {
    const prefix = uniquePrefix('limits');
    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix }));
    try {
      const many = await refusal(client, planOf(10_000));
      expect(many.code).toBe('input_too_large');
      expect(many.message).toBe('the objective has 10000 subtasks, more than the limit of 256 (TIERFLOW_MAX_SUBTASKS raises it)');

      const big = await refusal(client, { objective: 'big', task_data: { blob: 'x'.repeat(20 * 1024 * 1024) } });
      expect(big.code).toBe('input_too_large');
      expect(big.message).toMatch(/^the objective is 2097\d{4} bytes as JSON, more than the limit of 1048576 bytes \(TIERFLOW_MAX_OBJECTIVE_BYTES raises it\)$/);

      // Nothing but the queue's own meta record, which BullMQ writes when the client opens it.
      expect((await db.redis.keys(`${prefix}*`)).filter((key) => !key.endsWith(':monitor:meta'))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('takes as much as the deployment allows', async () => {
    const prefix = uniquePrefix('limits-raised');
    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix, limits: { maxSubtasks: 300, maxObjectiveBytes: 2 * 1024 * 1024 } }));
    try {
      await expect(client.enqueue(planOf(300))).resolves.toEqual(expect.any(String));
      await expect(client.enqueue({ objective: 'big', task_data: { blob: 'x'.repeat(1024 * 1024) } })).resolves.toEqual(expect.any(String));
      expect((await refusal(client, planOf(301))).code).toBe('input_too_large');
    } finally {
      await client.close();
    }
  });
});
