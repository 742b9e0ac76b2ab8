import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAuditTrail } from '@tierflow/runtime/admin';
import { redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { runCommand } from '../support/run-command.js';
import { runToEnd, simPlan, treeNodes } from '../support/runs.js';

// A specialist's explicit rejection of a handoff before any work starts
// (docs/protocol.md#explicit-rejection), over four worker processes: a reviewer that takes only
// reviews turns down code to write, and the Dispatcher hands that work to the next specialist on
// its route; a rejection with nowhere left to go ends the run, shown as rejected, not as failed work.
const CONFIG = `
export default {
  specialists: [
    {
      name: 'reviewer',
      version: '1.0.0',
      accepts: (input) => (input.taskType === 'review' ? { accept: true } : { accept: false, reason: 'I only review, I do not write code' }),
      run: async () => { throw new Error('a rejected handoff must not run'); },
    },
  ],
  routing: { execute_code: ['reviewer', 'sim'] },
};
`;

let dir: string;
let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-rejection-'));
  await writeFile(join(dir, 'tierflow.config.mjs'), CONFIG);
  deployment = await startDeployment('explicit-rejection', { TIERFLOW_LOG: 'silent', TIERFLOW_ANSWER_WAIT_MS: '0', TIERFLOW_CONFIG: join(dir, 'tierflow.config.mjs') });
  redis = redisClient(deployment.redis.url);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('explicit rejection', () => {
  it('routes work its specialist rejected to the next one, and marks the rejection on the tree and the trail', async () => {
    const { id, outcome, tree } = await runToEnd(deployment.client, simPlan('all_success', [{}], { task_type: 'execute_code' }));
    expect(outcome.payload.status).toBe('success');
    const leaves = treeNodes(tree, 'SPECIALIZED_FLEET');
    expect(leaves.map((leaf) => [leaf.specialist, leaf.status])).toEqual([
      ['reviewer', 'failed'],
      ['sim', 'success'],
    ]);
    expect(leaves[0]!.rejection).toEqual({ reason: 'I only review, I do not write code' });
    expect(leaves[1]!.rejection).toBeUndefined();

    const trail = await readAuditTrail(redis, deployment.runtime.prefix, id);
    const rejected = trail.filter((entry) => entry.kind === 'outcome' && entry.direction === 'sent' && entry.id === `${leaves[0]!.id}.out`);
    expect(rejected).toMatchObject([{ from: 'SPECIALIZED_FLEET', status: 'failed', detail: 'handoff_rejected' }]);

    const status = await runCommand(['status', id], { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });
    expect(status.output).toContain('✖ rejected by its agent: I only review, I do not write code');
  });

  it('ends the run when no specialist is left to take the work, its cause the rejection', async () => {
    const { outcome, tree } = await runToEnd(deployment.client, simPlan('all_success', [{ reject: 'not today' }], { specialist_hint: 'sim' }));
    expect(outcome.payload.status).toBe('failed');
    const leaves = treeNodes(tree, 'SPECIALIZED_FLEET');
    expect(leaves.length).toBeGreaterThan(0);
    for (const leaf of leaves) expect(leaf.rejection).toEqual({ reason: 'not today' });
    expect(outcome.payload.error_detail).toContain('not today');
  });
});
