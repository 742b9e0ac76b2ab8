import { isTierName, TIER_SLUGS } from '@tierflow/protocol';
import type { WorkerBeat } from '@tierflow/runtime';
import { textTable } from './text-table.js';

const HEADER = ['TIER', 'HOST', 'PID', 'UP', 'RUNNING', 'CONCURRENCY', 'LAST BEAT', 'SPECIALISTS'];

/** The live workers as a table, one process a line; `no workers` when none beats. */
export function renderWorkers(workers: readonly WorkerBeat[], now: number): string {
  if (workers.length === 0) return 'no workers: none has written a heartbeat lately\n';
  const rows = workers.map((worker) => [
    isTierName(worker.tier) ? TIER_SLUGS[worker.tier] : worker.tier,
    worker.host,
    String(worker.pid),
    age(now - Date.parse(worker.started_at)),
    String(worker.running),
    String(worker.concurrency),
    `${age(now - Date.parse(worker.beat_at))} ago`,
    worker.specialists?.join(', ') ?? '',
  ]);
  return textTable(HEADER, rows);
}

/** `4 s`, `3 min`, `2 h`, `5 d`: enough to tell a fresh beat from a stale one. */
function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
