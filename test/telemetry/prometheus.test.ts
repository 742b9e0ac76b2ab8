import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObjectiveFile } from '@tierflow/runtime';
import { FakeOpenAiServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { exposedSamples } from '../support/prometheus-exposition.js';
import { PROMETHEUS_SERIES } from '../support/prometheus-names.js';
import { startPrometheus, type PrometheusServer, type Sample } from '../support/prometheus.js';
import { serveDeployment, type Served } from '../support/served.js';

// A real Prometheus scrapes `tierflow serve`'s /metrics, with the API token, while four worker
// processes run roots whose leaves call an LLM specialist behind a fake OpenAI-compatible server;
// the figures are read back through Prometheus's query API (docs/operations.md#prometheus-and-grafana).
// The workers export their metrics to Redis as deltas (the deployment metric store), every
// TIERFLOW_METRICS_INTERVAL_MS; serve reads them there at each scrape.

const TOKEN = 'prometheus-e2e-token-0123456789';
const PRICE = { input_usd_per_mtok: 2.5, output_usd_per_mtok: 10 };
const SUCCEEDING = 3;

const plan = (objective: string, specialist: string, subtasks: number): ObjectiveFile => ({
  objective,
  task_data: { plan: { strategy: 'all_success', subtasks: Array.from({ length: subtasks }, (_, index) => ({ objective: `${objective}: piece ${index + 1}`, specialist_hint: specialist })) } },
});

/** `samples` as `label values → value`, e.g. `{ 'llm-writer input': 36 }`. */
const byLabels = (samples: readonly Sample[], labels: readonly string[]): Record<string, number> =>
  Object.fromEntries(samples.map((sample) => [labels.map((label) => sample.metric[label] ?? '').join(' '), sample.value] as const).sort(([a], [b]) => a.localeCompare(b)));

let project: string;
let models: FakeOpenAiServer;
let deployment: Deployment;
let served: Served;
let prometheus: PrometheusServer;
/** How each root ended, counted by status. */
const statuses: Record<string, number> = {};

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tierflow-prometheus-'));
  models = await FakeOpenAiServer.start(['llm-writer', 'llm-broken']);
  // The broken model's calls are refused (no usage, no cost): its root ends otherwise than success.
  models.respond = (body) => (body.model === 'llm-broken' ? { status: 400, body: { error: { message: 'no such thing', type: 'invalid_request_error' } } } : undefined);
  const config = join(project, 'tierflow.config.json');
  await writeFile(config, JSON.stringify({ models: { baseURL: models.baseURL, prices: { 'llm-writer': PRICE } } }));
  deployment = await startDeployment('prometheus-e2e', {
    TIERFLOW_LOG: 'silent',
    TIERFLOW_CONFIG: config,
    OPENAI_API_KEY: 'sk-test',
    TIERFLOW_METRICS: 'on',
    // Deltas to the deployment's store every second, not every 10 s.
    TIERFLOW_METRICS_INTERVAL_MS: '1000',
  });
  served = await serveDeployment(deployment.runtime, { token: TOKEN });
  const metrics = await fetch(`${served.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!metrics.ok) throw new Error(`tierflow serve answers GET /metrics with ${metrics.status}: it exports no metrics`);
  await metrics.arrayBuffer();
  prometheus = await startPrometheus([{ job: 'tierflow', address: new URL(served.url).host, bearerToken: TOKEN }]);
  await prometheus.waitForTargetsUp();

  const roots = [...Array.from({ length: SUCCEEDING }, (_, index) => plan(`write ${index}`, 'llm-writer', 2)), plan('break', 'llm-broken', 1)];
  const ids = await Promise.all(roots.map((root) => deployment.client.enqueue(root)));
  for (const id of ids) {
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 60_000 });
    statuses[outcome.payload.status] = (statuses[outcome.payload.status] ?? 0) + 1;
  }
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await served?.close();
  await deployment?.stop();
  await models?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('a real Prometheus scraping tierflow serve’s /metrics', () => {
  it('counts the runs finished by status as they ended', async () => {
    expect(statuses.success).toBe(SUCCEEDING);
    const samples = await prometheus.waitForValue(
      'sum by (tierflow_status) (tierflow_runs_finished_total{job="tierflow"})',
      (seen) =>
        JSON.stringify(byLabels(seen, ['tierflow_status'])) ===
        JSON.stringify(
          byLabels(
            Object.entries(statuses).map(([status, value]) => ({ metric: { tierflow_status: status }, value })),
            ['tierflow_status'],
          ),
        ),
      { timeoutMs: 30_000, description: `runs finished by status to be ${JSON.stringify(statuses)}` },
    );
    expect(byLabels(samples, ['tierflow_status'])).toEqual(statuses);
    const durations = await prometheus.query('sum by (tierflow_status) (tierflow_run_duration_count{job="tierflow"})');
    expect(byLabels(durations, ['tierflow_status'])).toEqual(statuses);
  });

  it('sums the tokens by model and type as the model server reported them, and their cost', async () => {
    // Every completion the fake answered for llm-writer reported 12 tokens in and 5 out.
    const calls = models.requests.filter((request) => request.path === '/v1/chat/completions' && (request.body as { model?: string }).model === 'llm-writer').length;
    expect(calls).toBe(SUCCEEDING * 2);
    const expected = { 'llm-writer input': 12 * calls, 'llm-writer output': 5 * calls };
    const tokens = await prometheus.waitForValue(
      'sum by (gen_ai_request_model, gen_ai_token_type) (gen_ai_client_token_usage_sum{job="tierflow"})',
      (seen) => JSON.stringify(byLabels(seen, ['gen_ai_request_model', 'gen_ai_token_type'])) === JSON.stringify(expected),
      { timeoutMs: 30_000, description: `tokens ${JSON.stringify(expected)}` },
    );
    expect(byLabels(tokens, ['gen_ai_request_model', 'gen_ai_token_type'])).toEqual(expected);
    // One histogram observation per call and token type.
    const observations = await prometheus.query('sum by (gen_ai_token_type) (gen_ai_client_token_usage_count{job="tierflow",gen_ai_request_model="llm-writer"})');
    expect(byLabels(observations, ['gen_ai_token_type'])).toEqual({ input: calls, output: calls });
    const [cost] = await prometheus.query('sum(tierflow_model_cost_total{job="tierflow",gen_ai_request_model="llm-writer"})');
    expect(cost?.value).toBeCloseTo((calls * (12 * PRICE.input_usd_per_mtok + 5 * PRICE.output_usd_per_mtok)) / 1e6, 9);
    // The broken model's calls took time and failed, naming why.
    const failed = await prometheus.query('sum by (error_type) (gen_ai_client_operation_duration_count{job="tierflow",gen_ai_request_model="llm-broken"})');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((sample) => sample.metric.error_type !== undefined && sample.metric.error_type !== '')).toBe(true);
  });

  it('shows each tier’s queue depth by state, and its workers alive', async () => {
    const depth = await prometheus.waitForValue('tierflow_queue_depth{job="tierflow"}', (seen) => new Set(seen.map((sample) => sample.metric.tierflow_tier)).size >= 4, {
      timeoutMs: 30_000,
      description: 'a queue depth for every tier',
    });
    expect(new Set(depth.map((sample) => sample.metric.tierflow_tier))).toEqual(new Set(['monitor', 'architect', 'dispatcher', 'fleet']));
    // All work is done: nothing waits or runs.
    expect(depth.filter((sample) => ['waiting', 'active'].includes(sample.metric.tierflow_queue_state ?? '')).every((sample) => sample.value === 0)).toBe(true);
    const alive = await prometheus.query('sum by (tierflow_tier) (tierflow_workers_alive{job="tierflow"})');
    expect(byLabels(alive, ['tierflow_tier'])).toEqual({ monitor: 1, architect: 1, dispatcher: 1, fleet: 1 });
  });

  it('labels no series with a root or message id', async () => {
    const series = await prometheus.query('{job="tierflow",__name__=~"tierflow_.+|gen_ai_.+"}');
    expect(series.length).toBeGreaterThan(0);
    const labels = new Set(series.flatMap((sample) => Object.keys(sample.metric)));
    for (const label of labels) expect(label).not.toMatch(/root|message|conversation|run_id|node_id/);
  });

  it('exposes only series the names table knows, so the Grafana dashboard checked against it asks for real ones', async () => {
    const response = await fetch(`${served.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const samples = exposedSamples(await response.text()).filter((sample) => sample.metric !== 'target_info');
    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) {
      const known = PROMETHEUS_SERIES.get(sample.metric);
      expect(known, sample.metric).toBeDefined();
      for (const label of sample.labels.filter((name) => !name.startsWith('otel_scope_') && name !== 'le')) expect(known!.labels, `${sample.metric} ${label}`).toContain(label);
    }
  });
});
