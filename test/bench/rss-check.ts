import { startDeployment } from '../support/deployment.js';
import { mb, rssOf } from './rss.js';
import { benchObjective } from './shape.js';

const TARGET_MB = 200;

// Roots wait minutes in the queues here; with the default timeouts (2 min at the top) they would
// answer `timeout` instead of running through.
const HOUR_MS = '3600000';

/** Enqueues `roots` at once and reports each worker's peak RSS against the per-worker target. */
export async function runRssCheck(roots: number, env: NodeJS.ProcessEnv): Promise<string[]> {
  const deployment = await startDeployment('bench-rss', {
    TIERFLOW_LOG: 'silent',
    TIERFLOW_ARCHITECT_TIMEOUT_MS: HOUR_MS,
    TIERFLOW_DISPATCHER_TIMEOUT_MS: HOUR_MS,
    TIERFLOW_FLEET_TIMEOUT_MS: HOUR_MS,
    ...env,
  });
  try {
    const { client } = deployment;
    const started = performance.now();
    const ids = await Promise.all(Array.from({ length: roots }, () => client.enqueue(benchObjective)));
    const outcomes = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 3_600_000 })));
    const seconds = (performance.now() - started) / 1000;
    const statuses = new Map<string, number>();
    for (const outcome of outcomes) statuses.set(outcome.payload.status, (statuses.get(outcome.payload.status) ?? 0) + 1);
    const counts = [...statuses].map(([status, count]) => `${count} ${status}`).join(', ');
    const lines = [`${roots} roots in flight: done in ${seconds.toFixed(0)} s (${(roots / seconds).toFixed(0)} roots/s; ${counts})`];
    let worst = 0;
    for (const [tier, child] of deployment.tiers.children) {
      const peak = mb(rssOf([child.pid!]).peakMax);
      worst = Math.max(worst, peak);
      lines.push(`  ${tier.padEnd(10)} peak RSS ${peak.toFixed(0)} MB`);
    }
    lines.push(`peak worker RSS ${worst.toFixed(0)} MB: ${worst <= TARGET_MB ? 'within' : 'OVER'} the ${TARGET_MB} MB per-worker target`);
    return lines;
  } finally {
    await deployment.stop();
  }
}
