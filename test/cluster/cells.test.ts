import type { OutcomeMessage } from '@tierflow/protocol';
import { cellOfRoot, cellPrefixes, DEFAULT_CONCURRENCY } from '@tierflow/runtime/admin';
import { type ObjectiveFile, type RunPage } from '@tierflow/runtime';
import { scanKeys } from '@tierflow/beads';
import { waitFor } from '@tierflow/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterDeployment, type ClusterDeployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';
import { tierflow } from '../security/tier-processes.js';

// A deployment of six cells on a Redis Cluster of three masters, its four tiers as four worker
// processes: runs spread over the shards, and each run works as on one server (docs/operations.md#cells).

const CELLS = 6;
const ok = { confidence: 0.9 };
const failed = { status: 'failed' };

describe('cells on a Redis Cluster of three masters', () => {
  let deployment: ClusterDeployment;

  beforeAll(async () => {
    deployment = await startClusterDeployment('cells', CELLS, { TIERFLOW_LOG: 'silent', TIERFLOW_ANSWER_WAIT_MS: '0' });
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  async function run(objective: ObjectiveFile, timeoutMs = 20_000): Promise<{ id: string; outcome: OutcomeMessage }> {
    const id = await deployment.client.enqueue(objective);
    return { id, outcome: await deployment.client.waitForResult(id, { timeoutMs }) };
  }

  it('runs every strategy, its runs spread over the cells and the cells over every master', async () => {
    const cases: [string, Record<string, unknown>[], string][] = [
      ['all_success', [ok, ok, ok], 'success'],
      ['all_success', [ok, ok, failed], 'partial'],
      ['any_success', [failed, ok, failed], 'success'],
      ['majority', [ok, ok, failed], 'success'],
      ['majority', [ok, failed], 'partial'],
      ['first_success', [ok, ok, ok], 'success'],
    ];
    // Each case three times: eighteen roots, enough to land in most of the six cells.
    const runs = await Promise.all(cases.flatMap(([strategy, sims, status]) => [0, 1, 2].map(async () => ({ status, ...(await run(simPlan(strategy, sims))) }))));
    for (const { outcome, status } of runs) expect(outcome.payload.status).toBe(status);
    expect(new Set(runs.map(({ id }) => cellOfRoot(id, CELLS))).size).toBeGreaterThanOrEqual(4);
    // A run's tree is read from its cell alone.
    const tree = await deployment.client.tree(runs[0]!.id);
    expect(treeNodes(tree!, 'SPECIALIZED_FLEET').map((leaf) => leaf.status)).toEqual(['success', 'success', 'success']);

    // Every master holds the keys of some cell: six hash tags over three shards.
    const masters = await deployment.cluster.masters();
    const held = await Promise.all(
      masters.map(async (master) => {
        const server = new Redis(master.url);
        try {
          return (await scanKeys(server, `${deployment.runtime.prefix.replace('}', ':*')}*`)).length;
        } finally {
          server.disconnect();
        }
      }),
    );
    for (const count of held) expect(count).toBeGreaterThan(0);
  }, 60_000);

  it('cancels a run in any cell: the abort reaches the running handler over its cell’s sharded channel', async () => {
    const ids = await Promise.all([0, 1, 2].map(() => deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 60_000 }]))));
    await Promise.all(
      ids.map(async (id) => {
        const started = Date.now();
        // Cancelled once its leaf runs: the leaf's abort is what answers it this fast.
        await waitFor(
          async () => {
            const tree = await deployment.client.tree(id);
            return tree !== null && treeNodes(tree, 'SPECIALIZED_FLEET').some((leaf) => leaf.status === 'running');
          },
          { timeoutMs: 15_000, description: `run ${id}'s leaf active` },
        );
        await deployment.client.cancel(id);
        const outcome = await deployment.client.waitForResult(id, { timeoutMs: 10_000 });
        expect(outcome.payload.status).toBe('cancelled');
        expect(Date.now() - started).toBeLessThan(20_000);
      }),
    );
  }, 60_000);

  it('answers timeout for a leaf that never finishes, from the cell’s own watchdogs and timers', async () => {
    const { id, outcome } = await run(simPlan('all_success', [{ delay_ms: 600_000 }], { timeout_ms: 1_000 }));
    expect(outcome.payload.status).toBe('failed');
    const leaves = treeNodes((await deployment.client.tree(id))!, 'SPECIALIZED_FLEET');
    expect(leaves.map((leaf) => leaf.status)).toEqual(Array(leaves.length).fill('timeout'));
  }, 30_000);

  it('lists runs and workers of every cell, and reads a run from its id alone, through the CLI', async () => {
    const { id } = await run(simPlan('all_success', [ok]));
    const status = await tierflow(['status', id, '--json'], deployment.env);
    expect(JSON.parse(status.stdout)).toMatchObject({ id, status: 'success' });
    const { runs } = JSON.parse((await tierflow(['runs', '--json', '--limit', '100'], deployment.env)).stdout) as { runs: { root_id: string }[] };
    expect(runs.map((listed) => listed.root_id)).toContain(id);
    expect(new Set(runs.map((listed) => cellOfRoot(listed.root_id, CELLS))).size).toBeGreaterThan(1);
    // Pages of two, one cursor going on in every cell, list the same runs in the same order.
    const paged: string[] = [];
    for (let cursor: string | null = null, pages = 0; pages === 0 || cursor !== null; pages++) {
      const page: RunPage = await deployment.client.findRuns({ limit: 2, ...(cursor === null ? {} : { cursor }) });
      paged.push(...page.runs.map((listed) => listed.root_id));
      cursor = page.next_cursor;
    }
    expect(paged).toEqual(runs.map((listed) => listed.root_id));
    const workers = JSON.parse((await tierflow(['workers', '--json'], deployment.env)).stdout) as { tier: string; concurrency: number }[];
    // One line per process, its concurrency summed over the six cells it serves.
    expect(workers.map((worker) => [worker.tier, worker.concurrency])).toEqual([
      ['PROGRESS_MONITOR', DEFAULT_CONCURRENCY * CELLS],
      ['ABSTRACT_ARCHITECT', DEFAULT_CONCURRENCY * CELLS],
      ['ROUTING_DISPATCHER', DEFAULT_CONCURRENCY * CELLS],
      ['SPECIALIZED_FLEET', DEFAULT_CONCURRENCY * CELLS],
    ]);
    expect(cellPrefixes(deployment.runtime)).toHaveLength(CELLS);
  }, 30_000);
});
