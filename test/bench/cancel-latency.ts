// Cancellation and first_success latency through four worker processes on a private Redis.
// - cancel: a 1→1→1→32 tree with every leaf running, and a 1→1→1→4 one beside it; from the cancel
//   request until the root's outcome arrives (the root is the last node to answer: parents answer
//   after their children). The two differ by what grows with the number of leaves.
// - first_success: from the winner's completion to the root's outcome (delays 50 ms / 5 s / 5 s).
import type { ObjectiveFile, TierflowClient } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { startDeployment } from '../support/deployment.js';
import { percentile } from './shape.js';

function plan(strategy: 'all_success' | 'first_success', delays: number[]): ObjectiveFile {
  return {
    objective: 'bench',
    task_data: { plan: { strategy, subtasks: delays.map((delay_ms, index) => ({ objective: `subtask ${index}`, task_data: { sim: { delay_ms } } })) } },
  };
}

export function summary(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${label}: median ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${values.length} runs)`;
}

/** Milliseconds from each cancel request to the root's `cancelled` outcome, for a tree of `leaves` leaves. */
export async function measureCancel(client: TierflowClient, runs: number, leaves = 32): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const rootId = await client.enqueue(plan('all_success', Array(leaves).fill(60_000) as number[]));
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        const running = tree?.children[0]?.children[0]?.children ?? [];
        return running.length === leaves && running.every((leaf) => leaf.status === 'active');
      },
      { timeoutMs: 30_000, description: `all ${leaves} leaves running` },
    );
    const started = performance.now();
    const answered = client.waitForResult(rootId, { timeoutMs: 30_000 });
    await client.cancel(rootId, { reason: 'bench' });
    const outcome = await answered;
    times.push(performance.now() - started);
    if (outcome.payload.status !== 'cancelled') throw new Error(`root ${rootId} ended ${outcome.payload.status}`);
  }
  return times;
}

/** Milliseconds from the winning leaf's completion to the root's, as the run tree records them. */
export async function measureFirstSuccess(client: TierflowClient, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const rootId = await client.enqueue(plan('first_success', [50, 5_000, 5_000]));
    const outcome = await client.waitForResult(rootId, { timeoutMs: 30_000 });
    const tree = await client.tree(rootId);
    const winner = tree?.children[0]?.children[0]?.children.find((leaf) => leaf.status === 'success');
    if (outcome.payload.status !== 'success' || !winner?.finished_at || !tree?.finished_at) throw new Error(`root ${rootId} ended ${outcome.payload.status}`);
    times.push(Date.parse(tree.finished_at) - Date.parse(winner.finished_at));
  }
  return times;
}

/** The measurements on a deployment of their own (40 jobs per process, so all 32 leaves run); three summary lines. */
export async function runCancelBench(runs: number, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const deployment = await startDeployment('bench-cancel', { TIERFLOW_LOG: 'silent', TIERFLOW_CONCURRENCY: '40', ...env });
  try {
    // Alternated, so both widths see the same machine.
    const narrow: number[] = [];
    const wide: number[] = [];
    for (let run = 0; run < runs; run++) {
      narrow.push(...(await measureCancel(deployment.client, 1, 4)));
      wide.push(...(await measureCancel(deployment.client, 1, 32)));
    }
    const raceTimes = await measureFirstSuccess(deployment.client, Math.min(runs, 20));
    return [summary('cancel 1→1→1→4, request to root answered', narrow), summary('cancel 1→1→1→32, request to root answered', wide), summary('first_success, winner done to root done', raceTimes)];
  } finally {
    await deployment.stop();
  }
}
