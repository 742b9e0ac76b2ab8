import { age } from './age.js';
import { getJson, postJson } from './api.js';
import type { RunPage, RunSummary } from './api-types.js';
import { fill, h, statusBadge } from './dom.js';
import { clock, duration, usd } from './format.js';
import { filtersOf, RUNS_PAGE, runsApiPath, runsPagePath, type RunFilterName, type RunsAddress } from './runs-query.js';
import { errorBanner, REFRESH_MS, report, type PageContext, type StopPage } from './page.js';

const EXAMPLE = `{
  "objective": "Implement binary search with edge case handling",
  "task_data": { "plan": { "strategy": "all_success", "subtasks": [{ "objective": "Write the function" }] } }
}`;

/** `/`: the runs that pass the filters in the page's address, read again every two seconds, a link to older ones, and a form to enqueue one. */
export function showRuns(context: PageContext): StopPage {
  const address = filtersOf(location.search);
  const { filters, cursor } = address;
  const banner = errorBanner();
  const rows = h('tbody');
  const updated = h('span', { class: 'muted' });
  const paging = h('nav', { class: 'paging', 'aria-label': 'Pages of runs' });
  const head = h('tr', {}, ...['Run', 'Status', 'Objective', 'Age', 'Duration', 'Tokens', 'Cost'].map((title) => h('th', { scope: 'col' }, title)));
  fill(
    context.main,
    h(
      'section',
      { class: 'panel' },
      h('div', { class: 'heading' }, h('h1', {}, 'Runs'), updated),
      filterForm(address),
      banner,
      h('table', { class: 'runs', id: 'runs' }, h('thead', {}, head), rows),
      paging,
    ),
    enqueueForm(context),
  );

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async (): Promise<void> => {
    try {
      const page = await getJson<RunPage>(runsApiPath(address));
      if (stopped) return;
      fill(rows, ...runRows(page.runs, Date.now(), filters.size > 0 || cursor !== null));
      fill(
        paging,
        cursor !== null && h('a', { href: runsPagePath(address, null), id: 'runs-latest' }, 'Latest'),
        page.next_cursor !== null && h('a', { href: runsPagePath(address, page.next_cursor), id: 'runs-older', rel: 'next' }, 'Older →'),
      );
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

/** Every status a run can have, for the filter's choice; the compiler holds it to the API's. */
const STATUSES = Object.keys({
  queued: true,
  running: true,
  waiting_for_children: true,
  input_required: true,
  retrying: true,
  deferred: true,
  success: true,
  partial: true,
  failed: true,
  blocked: true,
  needs_clarification: true,
  timeout: true,
  cancelled: true,
  throttled: true,
  missing: true,
  unreadable: true,
} satisfies Record<RunSummary['status'], true>);

/** The filters, as a form that loads the page again with them in its address (GET), so it works as a link does. */
function filterForm({ filters, limit }: RunsAddress): HTMLFormElement {
  const value = (name: RunFilterName): string | null => filters.get(name) ?? null;
  const field = (name: RunFilterName, label: string, attributes: Record<string, string | number> = {}) => h('label', {}, label, h('input', { name, value: value(name), ...attributes }));
  const status = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'any'),
    ...STATUSES.map((word) => h('option', { value: word, selected: value('status') === word }, word.replaceAll('_', ' '))),
  );
  const cost = { type: 'number', min: 0, step: 'any', class: 'cost' };
  return h(
    'form',
    { id: 'run-filters', method: 'get', action: '/', class: 'filters' },
    h('label', {}, 'Status', status),
    field('text', 'Objective', { type: 'search', placeholder: 'text in it' }),
    field('task_type', 'Task type'),
    field('specialist', 'Specialist'),
    field('model', 'Model'),
    field('error_type', 'Error type'),
    field('since', 'Since', { type: 'datetime-local' }),
    field('until', 'Until', { type: 'datetime-local' }),
    field('min_cost_usd', 'Cost from $', cost),
    field('max_cost_usd', 'to $', cost),
    limit !== RUNS_PAGE && h('input', { type: 'hidden', name: 'limit', value: limit }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter'), filters.size > 0 && h('a', { href: '/' }, 'Clear')),
  );
}

function runRows(runs: readonly RunSummary[], now: number, filtered: boolean): HTMLTableRowElement[] {
  if (runs.length === 0) {
    const none = filtered ? 'No runs match.' : 'No runs: none running, and none finished within retention.';
    return [h('tr', {}, h('td', { colspan: 7, class: 'muted' }, none))];
  }
  return runs.map((run) =>
    h(
      'tr',
      { 'data-run-id': run.root_id, 'data-queue-state': run.queue_state },
      h('td', { class: 'id' }, h('a', { href: `/runs/${encodeURIComponent(run.root_id)}`, title: run.root_id }, run.root_id)),
      h('td', {}, statusBadge(run.status)),
      h('td', { class: 'objective' }, run.objective),
      h('td', { class: 'number' }, age(now - Date.parse(run.submitted_at))),
      h('td', { class: 'number' }, run.duration_ms === null ? '–' : duration(run.duration_ms)),
      h('td', { class: 'number' }, run.tokens > 0 ? run.tokens.toLocaleString('en-US') : '–'),
      h('td', { class: 'number' }, usd(run.cost_usd) || '–'),
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
