import { age } from './age.js';
import { getJson, postJson } from './api.js';
import type { RunSummary } from './api-types.js';
import { fill, h, statusBadge } from './dom.js';
import { clock, duration } from './format.js';
import { errorBanner, REFRESH_MS, report, type PageContext, type StopPage } from './page.js';

const EXAMPLE = `{
  "objective": "Implement binary search with edge case handling",
  "task_data": { "plan": { "strategy": "all_success", "subtasks": [{ "objective": "Write the function" }] } }
}`;

/** `/`: the recent and active runs, read again every two seconds, and a form to enqueue one. */
export function showRuns(context: PageContext): StopPage {
  const banner = errorBanner();
  const rows = h('tbody');
  const updated = h('span', { class: 'muted' });
  const head = h('tr', {}, ...['Run', 'Status', 'Objective', 'Age', 'Duration'].map((title) => h('th', { scope: 'col' }, title)));
  fill(
    context.main,
    h('section', { class: 'panel' }, h('div', { class: 'heading' }, h('h1', {}, 'Runs'), updated), banner, h('table', { class: 'runs', id: 'runs' }, h('thead', {}, head), rows)),
    enqueueForm(context),
  );

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async (): Promise<void> => {
    try {
      const { runs } = await getJson<{ runs: RunSummary[] }>('/api/runs?limit=50');
      if (stopped) return;
      fill(rows, ...runRows(runs, Date.now()));
      banner.hidden = true;
      fill(updated, `updated ${clock(new Date().toISOString())}`);
    } catch (error) {
      if (!stopped) report(context, banner, error);
    }
    if (!stopped) timer = setTimeout(() => void refresh(), REFRESH_MS);
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function runRows(runs: readonly RunSummary[], now: number): HTMLTableRowElement[] {
  if (runs.length === 0) return [h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No runs: none running, and none finished within retention.'))];
  return runs.map((run) =>
    h(
      'tr',
      { 'data-run-id': run.root_id, 'data-queue-state': run.queue_state },
      h('td', { class: 'id' }, h('a', { href: `/runs/${encodeURIComponent(run.root_id)}`, title: run.root_id }, run.root_id)),
      h('td', {}, statusBadge(run.status)),
      h('td', { class: 'objective' }, run.objective),
      h('td', { class: 'number' }, age(now - Date.parse(run.submitted_at))),
      h('td', { class: 'number' }, run.duration_ms === null ? '–' : duration(run.duration_ms)),
    ),
  );
}

/** A form that takes an objective file as JSON, enqueues it, and opens the new run's page. */
function enqueueForm(context: PageContext): HTMLElement {
  const text = h('textarea', { id: 'objective-file', name: 'objective', rows: 8, spellcheck: false, placeholder: EXAMPLE, required: true });
  const message = h('p', { class: 'message', role: 'alert' });
  const button = h('button', { type: 'submit' }, 'Enqueue');
  const form = h(
    'form',
    { id: 'enqueue' },
    h('label', { for: 'objective-file' }, 'An objective file, as ', h('code', {}, 'tierflow enqueue'), ' takes it (JSON)'),
    text,
    h('div', { class: 'actions' }, button),
    message,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    fill(message);
    let objective: unknown;
    try {
      objective = JSON.parse(text.value);
    } catch (error) {
      fill(message, `Not JSON: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    button.disabled = true;
    postJson<{ root_id: string }>('/api/runs', objective)
      .then(({ root_id: rootId }) => location.assign(`/runs/${encodeURIComponent(rootId)}`))
      .catch((error: unknown) => {
        button.disabled = false;
        report(context, message, error);
      });
  });
  return h('details', { class: 'panel enqueue' }, h('summary', {}, 'Enqueue an objective'), form);
}
