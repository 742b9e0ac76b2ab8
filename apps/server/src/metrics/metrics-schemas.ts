import { z } from '@hono/zod-openapi';

/** The windows the Metrics page shows, and how long each is in minutes. */
export const METRIC_WINDOWS = { '1h': 60, '6h': 360, '24h': 1_440 } as const;
export type MetricWindow = keyof typeof METRIC_WINDOWS;

export const metricsQuery = z.object({
  window: z
    .enum(Object.keys(METRIC_WINDOWS) as [MetricWindow, ...MetricWindow[]])
    .default('1h')
    .openapi({ param: { name: 'window', in: 'query' }, description: 'How far back: 1h, 6h or 24h (1h when left out).', example: '1h' }),
});

const time = z.string().openapi({ description: 'When the step starts (ISO 8601).' });

/** `GET /api/metrics`: the deployment's figures a step at a time, from the metric store (docs/operations.md#the-metrics-page). */
export const metricsSchema = z
  .object({
    window: z.enum(Object.keys(METRIC_WINDOWS) as [MetricWindow, ...MetricWindow[]]),
    step_s: z.int().openapi({ description: 'The length of a step of the per-minute series, in seconds (hourly series are by the hour).' }),
    from: z.string(),
    to: z.string(),
    series: z.object({
      runs_per_minute: z.array(z.object({ t: time, status: z.string(), value: z.number() })).openapi({ description: 'Runs finished in each minute, by final status (tierflow.runs.finished).' }),
      hop_duration: z
        .array(z.object({ t: time, tier: z.string(), p50: z.number(), p95: z.number() }))
        .openapi({ description: 'The median and 95th percentile of a tier’s passes in each minute, in seconds, from the buckets of tierflow.hop.duration.' }),
      queue_depth: z
        .array(z.object({ t: time, tier: z.string(), value: z.number() }))
        .openapi({ description: 'Jobs waiting for a worker (waiting, prioritized, delayed) by tier, as serve sampled them in each minute.' }),
      tokens_per_hour: z
        .array(z.object({ t: time, model: z.string(), type: z.string(), value: z.number() }))
        .openapi({ description: 'Tokens by requested model and type (input, output) in each hour.' }),
      cost_per_hour: z
        .array(z.object({ t: time, model: z.string(), value: z.number() }))
        .openapi({ description: 'What model calls cost in each hour, in USD, by requested model (tierflow.model.cost).' }),
      errors: z.array(z.object({ t: time, error_type: z.string(), value: z.number() })).openapi({ description: 'Failed passes and dead letters in each minute, by error type.' }),
    }),
    dropped: z.int().openapi({ description: 'Points the store turned away over the window because a hash was full (a label set grown past its bound).' }),
  })
  .openapi('Metrics');
export type MetricsAnswer = z.infer<typeof metricsSchema>;
