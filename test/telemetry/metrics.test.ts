import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { TIER_SLUGS, type TierName } from '@tierflow/protocol';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { runToEnd, simPlan } from '../support/runs.js';

// Four worker processes on one host, each serving its own /metrics (OTEL_METRICS_EXPORTER=prometheus)
// from the same first port: each takes the first one free, and says which in its heartbeat.

/** A port nothing listens on now: the first one the workers try. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One sample of a Prometheus text exposition: its name, labels and value. */
interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

function samples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) return [];
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1]!, label[2]!]));
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(all: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return all.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)).reduce((sum, sample) => sum + sample.value, 0);
}

describe("each worker's own Prometheus endpoint", () => {
  let deployment: Deployment;
  let firstPort: number;
  let urls: Map<string, string>;

  beforeAll(async () => {
    firstPort = await freePort();
    deployment = await startDeployment('metrics', {
      TIERFLOW_LOG: 'silent',
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(firstPort),
    });
    // Two that succeed (one of them after a retry of its subtask), one that fails for good.
    await Promise.all([
      runToEnd(deployment.client, simPlan('all_success', [{}])),
      runToEnd(deployment.client, simPlan('all_success', [{ fail_times: 1 }])),
      runToEnd(deployment.client, simPlan('all_success', [{ permanent_error: true }])),
    ]);
    const workers = await waitFor(
      async () => {
        const beats = await deployment.client.workers();
        return beats.length === 4 && beats.every((beat) => beat.metrics_url) ? beats : null;
      },
      { timeoutMs: 10_000, description: 'four workers beating with their metrics endpoints' },
    );
    urls = new Map(workers.map((beat) => [TIER_SLUGS[beat.tier as TierName], beat.metrics_url!]));
  }, 60_000);

  afterAll(async () => {
    await deployment?.stop();
  });

  async function scrape(tier: string): Promise<Sample[]> {
    const response = await fetch(urls.get(tier)!);
    expect(response.status).toBe(200);
    return samples(await response.text());
  }

  it('each on a port of its own, from the first one on, named in its heartbeat and on its ready line', () => {
    const ports = [...urls.values()].map((url) => Number(new URL(url).port));
    expect(new Set(ports).size).toBe(4);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(firstPort);
    for (const [tier, url] of urls) expect(deployment.logs).toContainEqual(expect.stringMatching(new RegExp(`^${tier} \\| ${tier} worker ready on .*, metrics on ${url} \\(pid \\d+\\)$`)));
  });

  it('the Monitor counts the runs finished by status, and times them', async () => {
    const monitor = await scrape('monitor');
    expect(total(monitor, 'tierflow_runs_finished_total', { tierflow_status: 'success' })).toBe(2);
    expect(total(monitor, 'tierflow_runs_finished_total', { tierflow_status: 'failed' })).toBe(1);
    expect(total(monitor, 'tierflow_run_duration_count')).toBe(3);
    expect(total(monitor, 'target_info', { service_name: 'tierflow-monitor' })).toBe(1);
  });

  it("each tier times its passes: one answer per node, the Fleet's retried attempt besides", async () => {
    for (const tier of ['monitor', 'architect', 'dispatcher', 'fleet']) {
      const figures = await scrape(tier);
      const passes = figures.filter((sample) => sample.name === 'tierflow_hop_duration_count');
      // Only its own tier's figures on a worker's endpoint.
      expect(new Set(passes.map((sample) => sample.labels.tierflow_tier))).toEqual(new Set([tier]));
      const answered = passes.filter((sample) => !['parked', 'asked', 'retrying', 'errored'].includes(sample.labels.tierflow_status!));
      expect(
        answered.reduce((sum, sample) => sum + sample.value, 0),
        tier,
      ).toBe(3);
      expect(total(figures, 'tierflow_hop_queued_count', { tierflow_tier: tier }), tier).toBeGreaterThanOrEqual(3);
      expect(figures.some((sample) => sample.name === 'tierflow_worker_jobs_running' && sample.labels.tierflow_tier === tier)).toBe(true);
    }
    const fleet = await scrape('fleet');
    expect(total(fleet, 'tierflow_hop_duration_count', { tierflow_status: 'retrying' })).toBe(1);
    expect(total(fleet, 'tierflow_retries_total', { tierflow_tier: 'fleet' })).toBe(1);
    expect(total(fleet, 'tierflow_hop_duration_count', { tierflow_status: 'failed', error_type: '_OTHER' })).toBe(1);
  });
});
