import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { resolveRuntimeOptions, type RuntimeOptions } from '@tierflow/runtime';
import { metricStoreReader } from '@tierflow/runtime/admin';
import { metricsSchema } from '@tierflow/server';
import { redisClient, startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, watchedPage } from '../support/chromium.js';
import { serveDeployment, type Served } from '../support/served.js';

// The deployment metric store end to end: figures recorded by a real MeterProvider through the
// store's exporter, served by `tierflow serve` as Prometheus text (/metrics, behind the token),
// as JSON series (/api/metrics), and drawn by the dashboard's Metrics page in a real browser.

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
const TOKEN = 'a-token-of-sixteen-chars-or-more';
const SEEN_MS = 20_000;

let server: RedisServer;
let redis: Redis;
let runtime: RuntimeOptions;
let guarded: Served;
let open: Served;
let browser: Browser;

/** What a worker process records, exported into the store as a worker's reader does. */
async function recordAsAWorker(): Promise<void> {
  const provider = new MeterProvider({ readers: [metricStoreReader({ redis, prefix: runtime.prefix, writer: 'fleet', intervalMs: 300_000 })] });
  const meter = provider.getMeter('@tierflow/runtime');
  const runs = meter.createCounter('tierflow.runs.finished', { unit: '{run}', description: 'Runs finished' });
  runs.add(3, { 'tierflow.status': 'success' });
  runs.add(1, { 'tierflow.status': 'failed' });
  const hop = meter.createHistogram('tierflow.hop.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 0.5, 1, 5] } });
  for (const seconds of [0.05, 0.2, 0.3, 0.7]) hop.record(seconds, { 'tierflow.tier': 'fleet', 'tierflow.status': 'success' });
  hop.record(2, { 'tierflow.tier': 'fleet', 'tierflow.status': 'failed', 'error.type': 'timeout' });
  const tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024] } });
  tokens.record(120, { 'gen_ai.request.model': 'tiny-model', 'gen_ai.token.type': 'input', 'gen_ai.provider.name': 'openai' });
  tokens.record(30, { 'gen_ai.request.model': 'tiny-model', 'gen_ai.token.type': 'output', 'gen_ai.provider.name': 'openai' });
  meter.createCounter('tierflow.model.cost', { unit: 'USD' }).add(0.02, { 'gen_ai.request.model': 'tiny-model', 'gen_ai.provider.name': 'openai' });
  await provider.shutdown();
}

beforeAll(async () => {
  server = await startRedisServer();
  redis = redisClient(server.url);
  runtime = resolveRuntimeOptions({ redisUrl: server.url, prefix: uniquePrefix('{metrics}') });
  // Jobs waiting in the Fleet's queue, for the depth gauge (no worker takes them).
  const fleet = new Queue('fleet', { connection: redis, prefix: runtime.prefix });
  await fleet.addBulk([1, 2, 3].map((n) => ({ name: 'waiting', data: { n } })));
  await fleet.close();
  await recordAsAWorker();
  guarded = await serveDeployment(runtime, { token: TOKEN });
  open = await serveDeployment(runtime, { token: null });
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await open?.close();
  await guarded?.close();
  redis?.disconnect();
  await server?.stop();
});

describe('tierflow serve’s /metrics', () => {
  it('asks for the token, and with it answers the store’s totals and the queue depth in Prometheus text', async () => {
    expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
    const answer = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await answer.text();
    const scope = 'otel_scope_name="@tierflow/runtime"';
    expect(text).toContain(`tierflow_runs_finished_total{tierflow_status="success",${scope}} 3`);
    expect(text).toContain(`tierflow_hop_duration_bucket{tierflow_status="success",tierflow_tier="fleet",${scope},le="0.5"} 3`);
    expect(text).toContain(`gen_ai_client_token_usage_sum{gen_ai_provider_name="openai",gen_ai_request_model="tiny-model",gen_ai_token_type="input",${scope}} 120`);
    expect(text).toContain(`tierflow_queue_depth{tierflow_tier="fleet",tierflow_queue_state="waiting",${scope}} 3`);
    expect(text).toContain(`tierflow_workers_alive{tierflow_tier="fleet",${scope}} 0`);
  });

  it('answers /api/metrics in the shape of its schema, with the recorded figures', async () => {
    const answer = await fetch(`${guarded.url}/api/metrics?window=6h`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const metrics = metricsSchema.parse(await answer.json());
    expect(metrics.window).toBe('6h');
    expect(metrics.series.runs_per_minute.map(({ status, value }) => [status, value]).sort()).toEqual([
      ['failed', 1],
      ['success', 3],
    ]);
    expect(metrics.series.hop_duration).toMatchObject([{ tier: 'fleet' }]);
    expect(metrics.series.tokens_per_hour.map(({ model, type, value }) => [model, type, value]).sort()).toEqual([
      ['tiny-model', 'input', 120],
      ['tiny-model', 'output', 30],
    ]);
    expect(metrics.series.errors.map(({ error_type, value }) => [error_type, value])).toEqual([['timeout', 1]]);
    // The server sampled the queues when it started.
    await waitFor(
      async () => {
        const again = metricsSchema.parse(await (await fetch(`${open.url}/api/metrics`)).json());
        return again.series.queue_depth.some((point) => point.tier === 'fleet' && point.value === 3) || null;
      },
      { description: 'the queue depth sampled into the store' },
    );
    expect((await fetch(`${guarded.url}/api/metrics?window=7d`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(400);
  });
});

describe('the dashboard’s Metrics page', () => {
  it('draws the recorded figures with the chart library served here, naming models and tiers, without a console error', async () => {
    const { page, problems } = await watchedPage(browser, { width: 1280, height: 1600 });
    await page.goto(`${open.url}/`);
    await page.locator('header nav a', { hasText: 'Metrics' }).click();
    await page.waitForURL(/\/charts$/);
    for (const id of ['chart-runs', 'chart-hop', 'chart-tokens', 'chart-cost', 'chart-errors', 'chart-queue']) await page.locator(`#${id} canvas`).waitFor({ timeout: SEEN_MS });
    await expect(page.locator('#chart-tokens .u-legend').textContent()).resolves.toContain('tiny-model input');
    await expect(page.locator('#chart-cost .u-legend').textContent()).resolves.toContain('tiny-model');
    await expect(page.locator('#chart-hop .u-legend').textContent()).resolves.toContain('fleet p95');
    await expect(page.locator('#chart-runs .u-legend').textContent()).resolves.toContain('success');
    await expect(page.locator('#chart-errors .u-legend').textContent()).resolves.toContain('timeout');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'metrics-page.png'), fullPage: true });
    // Another window is a link away.
    await page.locator('.windows a[data-window="24h"]').click();
    await page.waitForURL(/window=24h/);
    await page.locator('#chart-runs canvas').waitFor({ timeout: SEEN_MS });
    expect(await page.locator('.windows a[aria-current="page"]').textContent()).toBe('24h');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('says what to do while there is nothing to draw', async () => {
    const empty = await serveDeployment(resolveRuntimeOptions({ redisUrl: server.url, prefix: uniquePrefix('{empty}') }), { token: null });
    const page = await browser.newPage();
    try {
      await page.goto(`${empty.url}/charts`);
      await page.locator('#chart-runs .empty').waitFor({ timeout: SEEN_MS });
      await expect(page.locator('#chart-runs .empty').textContent()).resolves.toContain('enqueue a run');
    } finally {
      await page.close();
      await empty.close();
    }
  });
});
