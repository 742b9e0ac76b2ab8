import { age } from './age.js';
import { getJson } from './api.js';
import type { HistoryReport } from './api-types.js';
import { fill, h } from './dom.js';
import { clock } from './format.js';
import { errorBanner, report, type PageContext, type StopPage } from './page.js';
import { calibrationLean, calibrationText, decayedCount, latency, meanUsd, percent, routingText, tokens } from './specialist-words.js';

/** How often the page reads the history again: it changes as runs finish, not by the second. */
const SPECIALISTS_REFRESH_MS = 15_000;

type TaskTypeHistory = HistoryReport['task_types'][number];
type Stats = TaskTypeHistory['specialists'][number]['stats'];

/** The table's columns, and whether each holds a figure (right-aligned). */
const COLUMNS: readonly (readonly [title: string, figure: boolean])[] = [
  ['Specialist', false],
  ['Model', false],
  ['Samples', true],
  ['Success', false],
  ['Calibration', false],
  ['p50', true],
  ['p95', true],
  ['Tokens', true],
  ['Cost', true],
  ['Surprises', true],
];

/** The task type the page's address asks for (`/specialists?task_type=x`), or null for all. */
export function taskTypeOf(search: string): string | null {
  const taskType = new URLSearchParams(search).get('task_type');
  return taskType === null || taskType === '' ? null : taskType;
}

/** `/specialists`: what the Monitor learned of each specialist, a table per task type, read again every 15 s. */
export function showSpecialists(context: PageContext): StopPage {
  const taskType = taskTypeOf(location.search);
  const banner = errorBanner();
  const updated = h('span', { class: 'muted' });
  const note = h('p', { class: 'muted', id: 'specialists-note' });
  const body = h('div', { id: 'specialists' });
  fill(
    context.main,
    h(
      'section',
      { class: 'panel' },
      h(
        'div',
        { class: 'heading' },
        h('h1', {}, taskType === null ? 'Specialists' : `Specialists of ${taskType}`),
        taskType !== null && h('a', { href: '/specialists', id: 'all-task-types' }, 'All task types'),
        updated,
      ),
      banner,
      note,
    ),
    body,
  );

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async (): Promise<void> => {
    try {
      const history = await getJson<HistoryReport>(`/api/stats${taskType === null ? '' : `?task_type=${encodeURIComponent(taskType)}`}`);
      if (stopped) return;
      fill(note, noteOf(history, taskType));
      fill(body, ...history.task_types.map(taskTypePanel), bottlenecksPanel(history.bottlenecks));
      banner.hidden = true;
      fill(updated, `updated ${clock(new Date().toISOString())}`);
    } catch (error) {
      if (!stopped) report(context, banner, error);
    }
    if (!stopped) timer = setTimeout(() => void refresh(), SPECIALISTS_REFRESH_MS);
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** What the figures are, or what to do while there are none. */
function noteOf(history: HistoryReport, taskType: string | null): string {
  if (history.task_types.length === 0) {
    return taskType === null ? 'No history yet: the Monitor learns from each run that finishes. Start the workers (tierflow up) and enqueue a run.' : `No history of task type ${taskType} yet.`;
  }
  const halfLife = history.half_life_ms === null ? '' : `, halving every ${age(history.half_life_ms)}`;
  return `Counts decay with age${halfLife}, so the figures follow a specialist that changes. Calibration compares the confidence a specialist reports with how often it succeeds.`;
}

function taskTypePanel(history: TaskTypeHistory): HTMLElement {
  const routing = routingText(history.routing);
  const rows = history.specialists.flatMap(({ specialist, stats, models }) => [
    h('tr', { class: 'specialist', 'data-specialist': specialist }, h('td', { class: 'name' }, specialist), h('td'), ...cells(stats)),
    ...models.map(({ model, stats: modelStats }) => h('tr', { class: 'model', 'data-specialist': specialist, 'data-model': model }, h('td'), h('td', {}, model), ...cells(modelStats))),
  ]);
  return h(
    'section',
    { class: 'panel task-type', 'data-task-type': history.task_type },
    h('h2', {}, h('a', { href: `/specialists?task_type=${encodeURIComponent(history.task_type)}` }, history.task_type)),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'specialists' },
        h('thead', {}, h('tr', {}, ...COLUMNS.map(([title, figure]) => h('th', { scope: 'col', class: figure ? 'number' : null }, title)))),
        h('tbody', {}, ...rows),
      ),
    ),
    routing !== null && h('p', { class: 'routing' }, `Routing: ${routing}.`),
  );
}

/** A specialist's (or model's) figures, its success rate drawn as a bar too. */
function cells(stats: Stats): HTMLElement[] {
  const lean = calibrationLean(stats.calibration.bins);
  return [
    h('td', { class: 'number' }, decayedCount(stats.samples)),
    h('td', { class: 'success' }, stats.success_rate !== null && h('meter', { min: 0, max: 1, value: Number(stats.success_rate.toFixed(3)) }), ` ${percent(stats.success_rate)}`),
    h('td', { class: 'calibration', 'data-lean': stats.calibration.ece === null ? null : (lean?.lean ?? null) }, calibrationText(stats.calibration)),
    h('td', { class: 'number' }, latency(stats.latency_ms?.p50)),
    h('td', { class: 'number' }, latency(stats.latency_ms?.p95)),
    h('td', { class: 'number' }, tokens(stats.mean_tokens_in === null || stats.mean_tokens_out === null ? null : stats.mean_tokens_in + stats.mean_tokens_out)),
    h('td', { class: 'number' }, meanUsd(stats.mean_cost_usd)),
    h('td', { class: 'number' }, stats.surprises > 0 ? decayedCount(stats.surprises) : '-'),
  ];
}

/** The slowest and least reliable pairs, each a line; nothing while there are none. */
function bottlenecksPanel(bottlenecks: HistoryReport['bottlenecks']): HTMLElement | null {
  if (bottlenecks.length === 0) return null;
  return h(
    'section',
    { class: 'panel', id: 'bottlenecks' },
    h('h2', {}, 'Bottlenecks'),
    h(
      'ul',
      {},
      ...bottlenecks.map((entry) =>
        h(
          'li',
          { 'data-reason': entry.reason },
          h('strong', {}, entry.reason === 'slow' ? 'Slow' : 'Unreliable'),
          ` ${entry.task_type} / ${entry.specialist}: ${entry.reason === 'slow' ? `p95 ${latency(entry.p95_latency_ms)}` : `success ${percent(entry.success_rate)}`} over ${decayedCount(entry.samples)} samples`,
        ),
      ),
    ),
  );
}
