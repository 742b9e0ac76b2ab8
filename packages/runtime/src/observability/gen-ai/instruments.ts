import { metrics, type Attributes, type Counter, type Histogram, type Meter, type MeterProvider } from '@opentelemetry/api';
import type { GenAiConventions } from './conventions.js';

/** The semantic conventions' advised buckets of `gen_ai.client.token.usage`, in tokens. */
export const TOKEN_USAGE_BUCKETS: readonly number[] = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** The semantic conventions' advised buckets of `gen_ai.client.operation.duration`, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

export const METER_NAME = '@tierflow/runtime';

/**
 * An instrument made on first use, and made again once the global MeterProvider is another: the
 * metrics API has no proxy provider, so an instrument made before the SDK registers one would
 * stay a no-op for good. Made at module load, it would be.
 */
function lazy<T>(make: (meter: Meter) => T): () => T {
  let made: { provider: MeterProvider; instrument: T } | null = null;
  return () => {
    const provider = metrics.getMeterProvider();
    if (made?.provider !== provider) made = { provider, instrument: make(provider.getMeter(METER_NAME)) };
    return made.instrument;
  };
}

const tokenUsage = lazy<Histogram>((meter) =>
  meter.createHistogram('gen_ai.client.token.usage', {
    description: 'Tokens used by a model call, input and output',
    unit: '{token}',
    advice: { explicitBucketBoundaries: [...TOKEN_USAGE_BUCKETS] },
  }),
);
const inferenceTokens = lazy<Counter>((meter) => meter.createCounter('gen_ai.client.inference.tokens', { description: 'Tokens used by model calls, input and output', unit: '{token}' }));
const duration = lazy<Histogram>((meter) =>
  meter.createHistogram('gen_ai.client.operation.duration', {
    description: 'How long a model call took, its retries and waits included',
    unit: 's',
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  }),
);
const cost = lazy<Counter>((meter) => meter.createCounter('tierflow.model.cost', { description: 'What model calls cost, at the configured prices', unit: 'USD' }));

/** One model call, as it is measured once it has ended. */
export interface ModelCallMeasure {
  readonly provider: string;
  readonly requestModel: string;
  /** The model that answered; null for a call that failed. */
  readonly responseModel: string | null;
  readonly serverAddress: string | null;
  readonly durationS: number;
  /** The tokens the server reported; null when it reported none (or the call failed). */
  readonly tokens: { readonly input: number; readonly output: number } | null;
  readonly costUsd: number;
  /** `error.type` of a failed call; null when it answered. */
  readonly errorType: string | null;
}

/** The attributes of a call's metrics, bounded: provider, models and server, never a run's or a message's id. Pure. */
export function measureAttributes(measure: ModelCallMeasure): Attributes {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': measure.provider,
    'gen_ai.request.model': measure.requestModel,
    ...(measure.responseModel === null ? {} : { 'gen_ai.response.model': measure.responseModel }),
    ...(measure.serverAddress === null ? {} : { 'server.address': measure.serverAddress }),
  };
}

/**
 * Records a model call that reached (or tried to reach) a model: its duration, its tokens (a
 * histogram in v1.41, the `gen_ai.client.inference.tokens` counter in the latest conventions) and
 * its cost. A replayed call is no model call and is not measured. Never throws.
 */
export function recordModelCall(measure: ModelCallMeasure, conventions: GenAiConventions): void {
  try {
    const attributes = measureAttributes(measure);
    duration().record(measure.durationS, measure.errorType === null ? attributes : { ...attributes, 'error.type': measure.errorType });
    if (measure.tokens) {
      for (const [type, count] of [
        ['input', measure.tokens.input],
        ['output', measure.tokens.output],
      ] as const) {
        if (conventions === 'latest') inferenceTokens().add(count, { ...attributes, 'gen_ai.token.type': type, 'gen_ai.token.modality': 'text' });
        else tokenUsage().record(count, { ...attributes, 'gen_ai.token.type': type });
      }
    }
    if (measure.costUsd > 0) cost().add(measure.costUsd, { 'gen_ai.provider.name': measure.provider, 'gen_ai.request.model': measure.requestModel });
  } catch {
    // Telemetry never fails a call.
  }
}
