import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { minuteOf, readStoreMinutes, readStoreTotals, type RedisClient } from '@tierflow/runtime/admin';
import type { RuntimeOptions, TierflowClient } from '@tierflow/runtime';
import { errorSchema } from '../runs/run-schemas.js';
import { workerGauges, sumSamples, type QueueDepths } from './deployment-gauges.js';
import { deploymentResourceMetrics, prometheusText } from './exposition.js';
import { metricSeries, SERIES_METRICS } from './metric-series.js';
import { METRIC_WINDOWS, metricsQuery, metricsSchema } from './metrics-schemas.js';

/** Where Prometheus scrapes the deployment's figures. */
export const METRICS_PATH = '/metrics';

/** Prometheus's text exposition format, as its own clients answer it. */
const EXPOSITION_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricsRouteDeps {
  readonly client: TierflowClient;
  readonly redis: RedisClient;
  readonly runtime: RuntimeOptions;
  readonly depths: QueueDepths;
  readonly now?: () => number;
}

/**
 * `GET /metrics`: the deployment-wide figures for Prometheus: the metric store's totals and the
 * gauges computed now from Redis (queue depth by tier and state, workers alive, jobs running per
 * worker, points the store dropped). `GET /api/metrics`: the series the dashboard's Metrics page
 * draws, from the store's minutes.
 */
export function metricsRoutes(app: OpenAPIHono, deps: MetricsRouteDeps): void {
  const now = deps.now ?? Date.now;

  app.get(METRICS_PATH, async (c) => {
    const [totals, cells, beats] = await Promise.all([readStoreTotals(deps.redis, deps.runtime), deps.depths.read(), deps.client.workers()]);
    const gauges = [
      { name: 'tierflow.queue.depth', description: 'Jobs in each tier’s queue, by BullMQ state, over every cell', unit: '{job}', samples: sumSamples(cells.flatMap((cell) => cell.samples)) },
      ...workerGauges(beats),
      {
        name: 'tierflow.metrics.dropped',
        description: 'Points the deployment metric store turned away from its totals, full',
        unit: '{point}',
        samples: [{ name: 'tierflow.metrics.dropped', attributes: {}, value: totals.dropped }],
      },
    ];
    return c.body(await prometheusText(deploymentResourceMetrics(totals, gauges, now())), 200, { 'content-type': EXPOSITION_TYPE, 'cache-control': 'no-store' });
  });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/metrics',
      summary: 'The deployment’s figures over a window, a minute (or an hour) at a time, for the dashboard’s Metrics page',
      request: { query: metricsQuery },
      responses: {
        200: { content: { 'application/json': { schema: metricsSchema } }, description: 'The series' },
        400: { content: { 'application/json': { schema: errorSchema } }, description: 'A window it does not know' },
      },
    }),
    async (c) => {
      const { window } = c.req.valid('query');
      const to = minuteOf(now());
      const minutes = await readStoreMinutes(deps.redis, deps.runtime, to - METRIC_WINDOWS[window] + 1, to, SERIES_METRICS);
      return c.json(metricSeries(window, minutes), 200);
    },
  );
}
