import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readAuditTrail } from '@tierflow/runtime/admin';
import { redisClient } from '@tierflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

// The preload as built (npm run build): a worker process loads plain JavaScript.
const PRELOAD = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'support', 'skewed-clock.js');

/** A tier process whose host clock is `ms` off (positive: ahead). */
const skewed = (ms: number): NodeJS.ProcessEnv => ({ NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${PRELOAD}`.trim(), SKEWED_CLOCK_MS: String(ms) });

let deployment: Deployment | undefined;

afterEach(async () => {
  await deployment?.stop();
  deployment = undefined;
});

describe('deadlines on one clock, whatever the hosts say', () => {
  it('a Monitor and a Fleet whose clocks run 60 s fast time out no healthy work', async () => {
    deployment = await startDeployment('skew-fast', { TIERFLOW_LOG: 'silent' }, { tierEnv: { monitor: skewed(60_000), fleet: skewed(60_000) } });
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ delay_ms: 300 }, { delay_ms: 300 }], { timeout_ms: 5_000 }));
    const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    const leaves = treeNodes((await client.tree(rootId))!, 'SPECIALIZED_FLEET');
    expect(leaves.map((leaf) => leaf.status)).toEqual(['success', 'success']);
  }, 60_000);

  it('a Dispatcher whose clock runs 60 s fast lets none of its deadlines slip', async () => {
    deployment = await startDeployment('skew-late', { TIERFLOW_LOG: 'silent' }, { tierEnv: { dispatcher: skewed(60_000) } });
    const { client } = deployment;
    const startedAt = Date.now();
    const rootId = await client.enqueue(simPlan('all_success', [{ delay_ms: 30_000 }], { timeout_ms: 1_500 }));
    await client.waitForResult(rootId, { timeoutMs: 20_000 });
    // The leaf's 1.5 s deadline held: it answered timeout long before its 30 s of work was done (a
    // wide bound, for a busy host; a slipped deadline would not end the run within the wait above).
    const redis = redisClient(deployment.redis.url);
    try {
      const trail = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
      const leafOutcome = trail.find((entry) => entry.by === 'ROUTING_DISPATCHER' && entry.kind === 'outcome' && entry.direction === 'received');
      expect(leafOutcome).toMatchObject({ status: 'timeout' });
      expect(Date.parse(leafOutcome!.time) - startedAt).toBeLessThan(15_000);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
