import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { resolveRuntimeOptions } from '../config/options.js';
import { TierflowClient } from './client.js';
import { rootObjectiveSchema } from '../model/objective.js';

const db = usePrivateRedis();

describe('TierflowClient.enqueue, given an objective file that names its JSON Schema', () => {
  it('enqueues it without the $schema field, which is for editors and not part of the run', async () => {
    const prefix = uniquePrefix('hint');
    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix }));
    try {
      const rootId = await client.enqueue({ $schema: './objective.schema.json', objective: 'Say hello', priority: 1 });
      // The job's hash (not the run index's record of the root).
      const keys = (await db.redis.keys(`${prefix}*${rootId}`)).filter((key) => !key.includes(':', key.lastIndexOf(rootId)) && !key.includes(':run-facts:'));
      expect(keys).toHaveLength(1);
      const root = rootObjectiveSchema.parse(JSON.parse((await db.redis.hget(keys[0]!, 'data'))!));
      expect(root.objective).toEqual({ objective: 'Say hello', priority: 1 });
    } finally {
      await client.close();
    }
  });
});
