import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, type Telemetry } from './start-telemetry.js';

const key = createContextKey('test');
const hop = ROOT_CONTEXT.setValue(key, 'hop');

// Spans are never started here, so nothing is exported; the endpoint only has to be valid.
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', ...extra });

async function activeAcrossAwait(): Promise<[unknown, unknown]> {
  return context.with(hop, async () => {
    const before = context.active().getValue(key);
    await new Promise((resolve) => setImmediate(resolve));
    return [before, context.active().getValue(key)] as [unknown, unknown];
  });
}

describe('startTelemetry and the active context', () => {
  let telemetry: Telemetry | null = null;
  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = null;
  });

  it('by default carries context through synchronous code, not across awaits (no async hooks)', async () => {
    telemetry = startTelemetry({ serviceName: 'test', env: env(), warn: () => undefined });
    expect(telemetry.enabled).toBe(true);
    expect(await activeAcrossAwait()).toEqual(['hop', undefined]);
  });

  it('with TIERFLOW_OTEL_ASYNC_CONTEXT=true carries it across awaits', async () => {
    telemetry = startTelemetry({ serviceName: 'test', env: env({ TIERFLOW_OTEL_ASYNC_CONTEXT: 'true' }), warn: () => undefined });
    expect(await activeAcrossAwait()).toEqual(['hop', 'hop']);
  });

  it('shutting down unregisters the context manager, so the process can start again', async () => {
    await startTelemetry({ serviceName: 'test', env: env({ TIERFLOW_OTEL_ASYNC_CONTEXT: 'true' }), warn: () => undefined }).shutdown();
    expect(context.with(hop, () => context.active().getValue(key))).toBeUndefined();
  });

  it('exports small batches every second unless OTEL_BSP_* say otherwise', async () => {
    const defaults = env();
    await startTelemetry({ serviceName: 'test', env: defaults, warn: () => undefined }).shutdown();
    expect([defaults.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, defaults.OTEL_BSP_SCHEDULE_DELAY]).toEqual(['64', '1000']);
    const chosen = env({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512', OTEL_BSP_SCHEDULE_DELAY: '5000' });
    await startTelemetry({ serviceName: 'test', env: chosen, warn: () => undefined }).shutdown();
    expect([chosen.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, chosen.OTEL_BSP_SCHEDULE_DELAY]).toEqual(['512', '5000']);
  });
});
