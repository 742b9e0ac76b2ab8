// Cancellation and first_success latency through four worker processes on a private Redis.
//   npm run build && node test/dist/bench/cancel.js [runs=50]
// - cancel: a 1→1→1→32 tree with every leaf running; from the cancel request until the root's
//   outcome arrives (the root is the last node to answer: parents answer after their children).
// - first_success: from the winner's completion to the root's outcome (delays 50 ms / 5 s / 5 s).
import type { ObjectiveFile } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { startDeployment } from '../support/deployment.js';

const runs = Number(process.argv[2] ?? 50);

function plan(strategy: 'all_success' | 'first_success', delays: number[]): ObjectiveFile {
  return {
    objective: 'bench',
    task_data: { plan: { strategy, subtasks: delays.map((delay_ms, index) => ({ objective: `subtask ${index}`, task_data: { sim: { delay_ms } } })) } },
  };
}

function summary(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return `${label}: median ${at(50).toFixed(1)} ms, p99 ${at(99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${values.length} runs)`;
}

const deployment = await startDeployment('bench-cancel', { TIERFLOW_LOG: 'silent', TIERFLOW_CONCURRENCY: '40' });
const { client } = deployment;
try {
  const cancelTimes: number[] = [];
  for (let run = 0; run < runs; run++) {
    const rootId = await client.enqueue(plan('all_success', Array(32).fill(60_000) as number[]));
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        const leaves = tree?.children[0]?.children[0]?.children ?? [];
        return leaves.length === 32 && leaves.every((leaf) => leaf.status === 'active');
      },
      { timeoutMs: 30_000, description: 'all 32 leaves running' },
    );
    const started = performance.now();
    const answered = client.waitForResult(rootId, { timeoutMs: 30_000 });
    await client.cancel(rootId, { reason: 'bench' });
    const outcome = await answered;
    cancelTimes.push(performance.now() - started);
    if (outcome.payload.status !== 'cancelled') throw new Error(`root ${rootId} ended ${outcome.payload.status}`);
  }

  const raceTimes: number[] = [];
  for (let run = 0; run < Math.min(runs, 20); run++) {
    const rootId = await client.enqueue(plan('first_success', [50, 5_000, 5_000]));
    const outcome = await client.waitForResult(rootId, { timeoutMs: 30_000 });
    const tree = await client.tree(rootId);
    const winner = tree?.children[0]?.children[0]?.children.find((leaf) => leaf.status === 'success');
    if (outcome.payload.status !== 'success' || !winner?.finished_at || !tree?.finished_at) throw new Error(`root ${rootId} ended ${outcome.payload.status}`);
    raceTimes.push(Date.parse(tree.finished_at) - Date.parse(winner.finished_at));
  }

  console.log(summary('cancel 1→1→1→32, request to root answered', cancelTimes));
  console.log(summary('first_success, winner done to root done', raceTimes));
} finally {
  await deployment.stop();
}
