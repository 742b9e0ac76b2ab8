import type { RunSummary } from '@tierflow/runtime';
import { age } from './age.js';
import { textTable } from './text-table.js';

const HEADER = ['ROOT', 'STATUS', 'AGE', 'DURATION', 'OBJECTIVE'];

/** Runs as a table, latest first; `no runs` when there are none. */
export function renderRuns(runs: readonly RunSummary[], now: number): string {
  if (runs.length === 0) return 'no runs (none running, and none finished within retention)\n';
  return textTable(
    HEADER,
    runs.map((run) => [run.root_id, run.status, age(now - Date.parse(run.submitted_at)), run.duration_ms === null ? '-' : duration(run.duration_ms), run.objective]),
  );
}

function duration(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : age(ms);
}
