import type { RunSummary } from '@tierflow/runtime';
import { age } from '@tierflow/server/age';
import type { RenderOptions } from './render-tree.js';
import { textTable } from './text-table.js';

/**
 * Runs as a table, latest first, with what each spent on model calls; `no runs` when there are
 * none. The statuses are the words of docs/statuses.md; with `debug`, a QUEUE column shows each
 * root job's BullMQ state.
 */
export function renderRuns(runs: readonly RunSummary[], now: number, { debug = false, filtered = false }: RenderOptions & { readonly filtered?: boolean } = {}): string {
  if (runs.length === 0) return filtered ? 'no runs match\n' : 'no runs (none running, and none finished within retention)\n';
  return textTable(
    ['ROOT', 'STATUS', ...(debug ? ['QUEUE'] : []), 'AGE', 'DURATION', 'TOKENS', 'COST', 'OBJECTIVE'],
    runs.map((run) => [
      run.root_id,
      run.status,
      ...(debug ? [run.queue_state] : []),
      age(now - Date.parse(run.submitted_at)),
      run.duration_ms === null ? '-' : duration(run.duration_ms),
      run.tokens > 0 ? run.tokens.toLocaleString('en-US') : '-',
      run.cost_usd > 0 ? `$${Number(run.cost_usd.toFixed(6)).toString()}` : '-',
      run.objective,
    ]),
  );
}

function duration(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : age(ms);
}
