import { escapeRedisGlob, scanKeys } from '@tierflow/beads';
import { cellOfRoot, cellPrefixes, connect } from '@tierflow/runtime/admin';
import { waitFor } from '@tierflow/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterDeployment, type ClusterDeployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

// A master of a Redis Cluster fails while runs are in flight in every cell: runs elsewhere go on,
// those in its cells go on once its replica has taken over, and no work is done twice.

const CELLS = 6;

describe('a master failed over mid-run', () => {
  let deployment: ClusterDeployment;

  beforeAll(async () => {
    deployment = await startClusterDeployment('failover', CELLS, { TIERFLOW_LOG: 'silent', TIERFLOW_ANSWER_WAIT_MS: '0', TIERFLOW_TRACK_COMPLETIONS: '1' }, { replicasPerMaster: 1 });
  }, 60_000);
  // The workers' clients keep asking for the dead master until they close: give stopping time.
  afterAll(async () => {
    await deployment?.stop();
  }, 60_000);

  it('loses no run, and runs nothing twice', async () => {
    const { client, cluster, runtime } = deployment;
    const prefixes = cellPrefixes(runtime);
    // The master that holds cell 0, and roots placed in its cells and in the others'.
    const failing = await cluster.masterOf(`${prefixes[0]}:x`);
    const onFailing = new Set<number>();
    for (const [index, prefix] of prefixes.entries()) if ((await cluster.masterOf(`${prefix}:x`)).port === failing.port) onFailing.add(index);
    const ids = { failing: [] as string[], others: [] as string[] };
    while (ids.failing.length < 4 || ids.others.length < 4) {
      const id = randomUUID();
      const group = onFailing.has(cellOfRoot(id, CELLS)) ? ids.failing : ids.others;
      if (group.length < 4) group.push(id);
    }
    const all = [...ids.failing, ...ids.others];
    // Leaves of 3 s each, so the failover lands while they run.
    await Promise.all(all.map((rootId) => client.enqueue(simPlan('all_success', [{ delay_ms: 3_000 }, { delay_ms: 3_000 }]), { rootId })));
    const outcomes = Promise.all(all.map((rootId) => client.waitForResult(rootId, { timeoutMs: 60_000 })));
    await waitFor(
      async () => {
        const trees = await Promise.all(all.map((rootId) => client.tree(rootId)));
        return trees.every((tree) => tree !== null && treeNodes(tree, 'SPECIALIZED_FLEET').some((leaf) => leaf.status === 'running'));
      },
      { timeoutMs: 20_000, description: 'every run with a leaf at work' },
    );

    const promoted = await cluster.failover(failing.port);
    expect(promoted).not.toBe(failing.port);

    const results = await outcomes;
    expect(results.map((outcome) => outcome.payload.status)).toEqual(all.map(() => 'success'));
    // The Fleet records a second completion of any message: none, in any cell.
    const reader = connect(runtime);
    try {
      const duplicates = await Promise.all(prefixes.map((prefix) => scanKeys(reader, `${escapeRedisGlob(prefix)}:beads:execution/duplicates/*`)));
      expect(duplicates.flat()).toEqual([]);
    } finally {
      reader.disconnect();
    }
  }, 90_000);
});
