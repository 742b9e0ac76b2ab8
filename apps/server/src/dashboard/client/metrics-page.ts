import type uPlot from 'uplot';
import { getJson } from './api.js';
import type { Metrics } from './api-types.js';
import { fill, h } from './dom.js';
import { clock } from './format.js';
import { align, joinAligned, WINDOWS, windowOf, type Aligned, type Window } from './metrics-data.js';
import { errorBanner, report, type PageContext, type StopPage } from './page.js';

/** How often the page reads the figures again. */
const METRICS_REFRESH_MS = 15_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** uPlot, served by this server from its own copy (no CDN): loaded on this page only. */
const UPLOT_MODULE = '/assets/uplot.js';
type UPlotClass = typeof uPlot;

const COLOURS = ['#0969da', '#1a7f37', '#cf222e', '#9a6700', '#8250df', '#bf3989', '#0a7b83', '#953800', '#57606a', '#6639ba'];

/** What a chart shows, and what to say while it has nothing. */
interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly empty: string;
  /** Samples with gaps between them (gauges, quantiles): each drawn as a point too, so a lone one shows. */
  readonly samples?: boolean;
  readonly data: (metrics: Metrics) => Aligned;
}

const minutes = (metrics: Metrics) => ({ fromIso: metrics.from, toIso: metrics.to, stepMs: MINUTE_MS });
const hours = (metrics: Metrics) => ({ fromIso: metrics.from, toIso: metrics.to, stepMs: HOUR_MS });
const START = 'Start the workers (tierflow up) and enqueue a run: workers write their figures every 10 s.';

const CHARTS: readonly ChartSpec[] = [
  {
    id: 'chart-runs',
    title: 'Runs finished per minute, by status',
    unit: 'runs',
    empty: `No run finished in this window. ${START}`,
    data: (m) =>
      align(
        m.series.runs_per_minute,
        (p) => p.status,
        (p) => p.value,
        minutes(m),
        0,
      ),
  },
  {
    id: 'chart-hop',
    title: 'Pass duration by tier, p50 and p95 (s)',
    unit: 's',
    empty: `No tier finished a pass in this window. ${START}`,
    samples: true,
    data: (m) =>
      joinAligned(
        align(
          m.series.hop_duration,
          (p) => `${p.tier} p50`,
          (p) => p.p50,
          minutes(m),
          null,
        ),
        align(
          m.series.hop_duration,
          (p) => `${p.tier} p95`,
          (p) => p.p95,
          minutes(m),
          null,
        ),
      ),
  },
  {
    id: 'chart-queue',
    title: 'Queue depth by tier (jobs waiting for a worker)',
    unit: 'jobs',
    empty: 'No sample of the queues in this window: tierflow serve samples them every 15 s while it runs.',
    samples: true,
    data: (m) =>
      align(
        m.series.queue_depth,
        (p) => p.tier,
        (p) => p.value,
        minutes(m),
        null,
      ),
  },
  {
    id: 'chart-tokens',
    title: 'Tokens per hour, by model and type',
    unit: 'tokens',
    empty: 'No model call in this window: specialists and planners backed by a model report their tokens here.',
    data: (m) =>
      align(
        m.series.tokens_per_hour,
        (p) => `${p.model} ${p.type}`,
        (p) => p.value,
        hours(m),
        0,
      ),
  },
  {
    id: 'chart-cost',
    title: 'Cost per hour, by model (USD)',
    unit: 'USD',
    empty: 'No model call with a price in this window.',
    data: (m) =>
      align(
        m.series.cost_per_hour,
        (p) => p.model,
        (p) => p.value,
        hours(m),
        0,
      ),
  },
  {
    id: 'chart-errors',
    title: 'Errors per minute, by type (failed passes and dead letters)',
    unit: 'errors',
    empty: 'No errors in this window.',
    data: (m) =>
      align(
        m.series.errors,
        (p) => p.error_type,
        (p) => p.value,
        minutes(m),
        0,
      ),
  },
];

/** `/charts`: the deployment's figures over a window, as charts, read again every 15 s. */
export function showMetrics(context: PageContext): StopPage {
  const window = windowOf(location.search);
  const banner = errorBanner();
  const updated = h('span', { class: 'muted' });
  const note = h('p', { class: 'muted', id: 'metrics-dropped', hidden: true });
  const figures = CHARTS.map((spec) => ({ spec, body: h('div', { class: 'chart', id: spec.id }) }));
  fill(
    context.main,
    h(
      'section',
      { class: 'panel' },
      h('div', { class: 'heading' }, h('h1', {}, 'Metrics'), windowPicker(window), updated),
      banner,
      note,
      h('div', { class: 'charts' }, ...figures.map(({ spec, body }) => h('figure', { class: 'chart-panel' }, h('figcaption', {}, spec.title), body))),
    ),
  );

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let plots: uPlot[] = [];
  const refresh = async (): Promise<void> => {
    try {
      const [metrics, { default: UPlot }] = await Promise.all([getJson<Metrics>(`/api/metrics?window=${window}`), import(UPLOT_MODULE) as Promise<{ default: UPlotClass }>]);
      if (stopped) return;
      for (const plot of plots) plot.destroy();
      plots = figures.flatMap(({ spec, body }) => draw(UPlot, spec, spec.data(metrics), body));
      note.hidden = metrics.dropped === 0;
      fill(note, `The metric store turned away ${metrics.dropped} points in this window: a label set grew past its bound.`);
      banner.hidden = true;
      fill(updated, `updated ${clock(new Date().toISOString())}`);
    } catch (error) {
      if (!stopped) report(context, banner, error);
    }
    if (!stopped) timer = setTimeout(() => void refresh(), METRICS_REFRESH_MS);
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const plot of plots) plot.destroy();
  };
}

/** The windows as links, the current one marked: each loads the page again with it in its address. */
function windowPicker(current: Window): HTMLElement {
  return h(
    'nav',
    { class: 'windows', 'aria-label': 'Window' },
    ...WINDOWS.map((window) => h('a', { href: `/charts?window=${window}`, 'data-window': window, 'aria-current': window === current ? 'page' : null }, window)),
  );
}

/** A chart of `data` in `body`, or the spec's empty state when it has no series. */
function draw(UPlot: UPlotClass, spec: ChartSpec, data: Aligned, body: HTMLElement): uPlot[] {
  if (data.series.length === 0) {
    fill(body, h('p', { class: 'muted empty' }, spec.empty));
    return [];
  }
  fill(body);
  const options: uPlot.Options = {
    width: Math.max(320, body.clientWidth || 560),
    height: 220,
    series: [
      {},
      ...data.series.map((series, index) => ({ label: series.label, stroke: COLOURS[index % COLOURS.length]!, width: 2, spanGaps: false, points: { show: spec.samples === true, size: 5 } })),
    ],
    axes: [{}, { label: spec.unit, size: 60 }],
    scales: { x: { time: true } },
  };
  return [new UPlot(options, [data.times, ...data.series.map((series) => series.values)], body)];
}
