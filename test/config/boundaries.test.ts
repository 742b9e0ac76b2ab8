import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutcomeMessage } from '@tierflow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';
import { tierflow } from '../security/tier-processes.js';

// Collaboration boundaries (docs/protocol.md#collaboration-boundaries) from a project file, over
// four worker processes: the Dispatcher may hand work to `sim` alone.
const CONFIG = { routing: { risky: ['shell', 'sim'] }, boundaries: { dispatcher: ['fleet:sim'] } };

let dir: string;
let deployment: Deployment;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-boundaries-'));
  await writeFile(join(dir, 'tierflow.config.json'), JSON.stringify(CONFIG));
  deployment = await startDeployment('boundaries', { TIERFLOW_LOG: 'silent', TIERFLOW_ANSWER_WAIT_MS: '0', TIERFLOW_CONFIG: join(dir, 'tierflow.config.json') });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function run(subtask: Record<string, unknown>): Promise<{ id: string; outcome: OutcomeMessage }> {
  const id = await deployment.client.enqueue({ objective: 'bounded', task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'the part', ...subtask }] } } });
  return { id, outcome: await deployment.client.waitForResult(id, { timeoutMs: 20_000 }) };
}

describe('collaboration boundaries', () => {
  it('keep routing within them: a route list’s first specialist outside is passed over', async () => {
    const { id, outcome } = await run({ task_type: 'risky' });
    expect(outcome.payload.status).toBe('success');
    expect(treeNodes((await deployment.client.tree(id))!, 'SPECIALIZED_FLEET')).toMatchObject([{ specialist: 'sim', status: 'success' }]);
  });

  it('refuse a delegation outside them before it is sent, with the allowed targets, on the audit trail', async () => {
    const { id, outcome } = await run({ specialist_hint: 'shell' });
    const tree = (await deployment.client.tree(id))!;
    // Nothing reached the Fleet: the Dispatcher refused its own round.
    expect(treeNodes(tree, 'SPECIALIZED_FLEET')).toEqual([]);
    const [dispatcher] = treeNodes(tree, 'ROUTING_DISPATCHER');
    expect(dispatcher).toMatchObject({ status: 'failed' });
    expect(outcome.payload.status).toBe('failed');
    expect(outcome.payload.error_detail).toContain('dispatcher may not hand work to fleet:shell: outside its collaboration boundaries; it may hand work to fleet:sim');
    const trail = JSON.parse((await tierflow(['audit', id, '--json'], { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix })).stdout) as {
      from: string;
      kind: string;
      detail: string;
    }[];
    expect(trail).toContainEqual(expect.objectContaining({ from: 'ROUTING_DISPATCHER', kind: 'outcome', detail: 'boundary_violation' }));
  });
});
