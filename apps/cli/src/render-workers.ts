import { isTierName, TIER_SLUGS } from '@tierflow/protocol';
import type { WorkerBeat } from '@tierflow/runtime';
import { age } from '@tierflow/server/age';
import { textTable } from './text-table.js';

const HEADER = ['TIER', 'HOST', 'PID', 'UP', 'RUNNING', 'CONCURRENCY', 'LAST BEAT', 'SPECIALISTS'];

/**
 * The live workers as a table, one process a line; `no workers` when none beats. Where any serves
 * its own metrics (OTEL_METRICS_EXPORTER=prometheus), a METRICS column says where each is scraped.
 */
export function renderWorkers(workers: readonly WorkerBeat[], now: number): string {
  if (workers.length === 0) return 'no workers: none has written a heartbeat lately\n';
  const metrics = workers.some((worker) => worker.metrics_url);
  const rows = workers.map((worker) => [
    isTierName(worker.tier) ? TIER_SLUGS[worker.tier] : worker.tier,
    worker.host,
    String(worker.pid),
    age(now - Date.parse(worker.started_at)),
    String(worker.running),
    String(worker.concurrency),
    `${age(now - Date.parse(worker.beat_at))} ago`,
    ...(metrics ? [worker.metrics_url ?? ''] : []),
    worker.specialists?.join(', ') ?? '',
  ]);
  return textTable(metrics ? [...HEADER.slice(0, -1), 'METRICS', ...HEADER.slice(-1)] : HEADER, rows);
}
