// Cancellation and first_success latency through four worker processes on a private Redis.
// - cancel: a 1→1→1→32 tree with every leaf running, and a 1→1→1→4 one beside it; from the cancel
//   request until the root's outcome arrives (the root is the last node to answer: parents answer
//   after their children). The two differ by what grows with the number of leaves.
// - first_success: from the winner's completion to the root's outcome (delays 50 ms / 5 s / 5 s).
// For the cancel runs it also says where the time went: when the last leaf answered, then each
// parent, from the jobs' finish times (milliseconds, on this host's clock).
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

export function summary(label: string, values: number[], warmedUp = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${label}: median ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${values.length} runs${warmedUp ? `, after ${warmedUp} not counted` : ''})`;
}

/** When each level of a cancelled tree had answered, in ms after the request: the last leaf, the Dispatcher, the Architect, the root. */
export type CancelLevels = readonly [number, number, number, number];

/** The finish times of the tree's levels, from the bottom up, relative to `since` (ms since the epoch). */
async function levelTimes(client: TierflowClient, rootId: string, since: number): Promise<CancelLevels | null> {
  const root = await client.tree(rootId);
  const architect = root?.children[0];
  const dispatcher = architect?.children[0];
  const leaves = (dispatcher?.children ?? []).map((leaf) => (leaf.finished_at ? Date.parse(leaf.finished_at) : Number.NaN));
  const at = (node: { finished_at: string | null } | undefined): number => (node?.finished_at ? Date.parse(node.finished_at) - since : Number.NaN);
  const times: CancelLevels = [Math.max(...leaves) - since, at(dispatcher), at(architect), at(root ?? undefined)];
  return times.every(Number.isFinite) ? times : null;
}

/** Milliseconds from each cancel request to the root's `cancelled` outcome, for a tree of `leaves` leaves; each run's levels go to `levels`. */
export async function measureCancel(client: TierflowClient, runs: number, leaves = 32, levels: CancelLevels[] = []): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const rootId = await client.enqueue(plan('all_success', Array(leaves).fill(60_000) as number[]));
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        const running = tree?.children[0]?.children[0]?.children ?? [];
        return running.length === leaves && running.every((leaf) => leaf.status === 'running');
      },
      { timeoutMs: 30_000, description: `all ${leaves} leaves running` },
    );
    const [started, requestedAt] = [performance.now(), Date.now()];
    const answered = client.waitForResult(rootId, { timeoutMs: 30_000 });
    await client.cancel(rootId, { reason: 'bench' });
    const outcome = await answered;
    times.push(performance.now() - started);
    if (outcome.payload.status !== 'cancelled') throw new Error(`root ${rootId} ended ${outcome.payload.status}`);
    const level = await levelTimes(client, rootId, requestedAt);
    if (level) levels.push(level);
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

/** The median of each level's time, as one line. */
export function levelSummary(label: string, levels: readonly CancelLevels[]): string {
  const median = (index: number): string =>
    percentile(
      levels.map((level) => level[index]!).sort((a, b) => a - b),
      50,
    ).toFixed(0);
  return `${label}, answered after (median ms): last leaf ${median(0)}, Dispatcher ${median(1)}, Architect ${median(2)}, root ${median(3)} (${levels.length} runs)`;
}

/**
 * Trees of each width cancelled first and not counted: the workers' first cancellations run cold
 * (code not yet optimised), 2–4 times slower than the rest, and would be the tail of every run.
 */
export const CANCEL_WARM_UP_RUNS = 10;

/** The measurements on a deployment of their own (40 jobs per process, so all 32 leaves run); five summary lines. */
export async function runCancelBench(runs: number, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const deployment = await startDeployment('bench-cancel', { TIERFLOW_LOG: 'silent', TIERFLOW_CONCURRENCY: '40', ...env });
  try {
    for (let run = 0; run < CANCEL_WARM_UP_RUNS; run++) {
      await measureCancel(deployment.client, 1, 4);
      await measureCancel(deployment.client, 1, 32);
    }
    // Alternated, so both widths see the same machine.
    const narrow: number[] = [];
    const wide: number[] = [];
    const [narrowLevels, wideLevels]: [CancelLevels[], CancelLevels[]] = [[], []];
    for (let run = 0; run < runs; run++) {
      narrow.push(...(await measureCancel(deployment.client, 1, 4, narrowLevels)));
      wide.push(...(await measureCancel(deployment.client, 1, 32, wideLevels)));
    }
    const raceTimes = await measureFirstSuccess(deployment.client, Math.min(runs, 20));
    return [
      summary('cancel 1→1→1→4, request to root answered', narrow, CANCEL_WARM_UP_RUNS),
      summary('cancel 1→1→1→32, request to root answered', wide, CANCEL_WARM_UP_RUNS),
      levelSummary('cancel 1→1→1→4', narrowLevels),
      levelSummary('cancel 1→1→1→32', wideLevels),
      summary('first_success, winner done to root done', raceTimes),
    ];
  } finally {
    await deployment.stop();
  }
}
