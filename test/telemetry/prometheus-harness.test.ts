import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrometheus, parseQueryAnswer, scrapeConfig, type PrometheusServer } from '../support/prometheus.js';
import { exposeInstruments } from '../support/prometheus-exposition.js';
import { TIERFLOW_INSTRUMENTS } from '../support/prometheus-names.js';

const TOKEN = 'harness-token-0123456789';

describe('the Prometheus test harness', () => {
  it('writes a scrape config with the bearer token in a credentials file', () => {
    const { yaml, tokenFiles } = scrapeConfig(
      [
        { job: 'tierflow', address: '127.0.0.1:1', bearerToken: TOKEN },
        { job: 'plain', address: '127.0.0.1:2', path: '/m' },
      ],
      '/tmp/x',
      1,
    );
    expect(yaml).toContain('scrape_interval: 1s');
    expect(yaml).toContain('credentials_file: "/tmp/x/token-0"');
    expect(yaml).toContain('metrics_path: "/m"');
    expect(yaml).not.toContain(TOKEN);
    expect([...tokenFiles]).toEqual([['/tmp/x/token-0', TOKEN]]);
  });

  it('reads query answers: vectors, scalars, and refusals as errors', () => {
    expect(parseQueryAnswer('up', { status: 'success', data: { resultType: 'vector', result: [{ metric: { job: 'a' }, value: [1, '2.5'] }] } })).toEqual([{ metric: { job: 'a' }, value: 2.5 }]);
    expect(parseQueryAnswer('1', { status: 'success', data: { resultType: 'scalar', result: [1, '1'] } })).toEqual([{ metric: {}, value: 1 }]);
    expect(() => parseQueryAnswer('sum(', { status: 'error', errorType: 'bad_data', error: 'parse error' })).toThrow(/refused sum\(: parse error/);
    expect(() => parseQueryAnswer('up', { status: 'success', data: { resultType: 'matrix', result: [] } })).toThrow();
  });
});

/**
 * A real Prometheus scrapes a tiny server that serves, behind a bearer token, what the OTel
 * serializer makes of Tierflow's instruments; the test reads the figures back through the query
 * API. Proves the harness, the names (prometheus-names.ts) and that Prometheus takes the
 * serializer's exposition (its `# UNIT` lines included).
 */
describe('a real Prometheus scraping a fixed exposition', () => {
  let endpoint: Server;
  let prometheus: PrometheusServer;
  let scrapes = 0;
  let unauthorised = 0;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const text = await exposeInstruments(TIERFLOW_INSTRUMENTS, 7, (name) => (name === 'tierflow.status' ? 'success' : name === 'tierflow.tier' ? 'fleet' : 'x'));
    endpoint = createServer((request, response) => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) {
        unauthorised += 1;
        response.writeHead(401).end();
        return;
      }
      scrapes += 1;
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text);
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const { port } = endpoint.address() as AddressInfo;
    const started = performance.now();
    prometheus = await startPrometheus([{ job: 'tierflow', address: `127.0.0.1:${port}`, bearerToken: TOKEN }]);
    timings.ready = performance.now() - started;
    await prometheus.waitForTargetsUp();
    timings.up = performance.now() - started;
  });

  afterAll(async () => {
    await prometheus?.stop();
    await new Promise<void>((resolve) => (endpoint ? endpoint.close(() => resolve()) : resolve()));
    // What a Prometheus costs a test here (the e2e test pays it once).
    console.log(`prometheus ready in ${timings.ready?.toFixed(0)} ms, target up in ${timings.up?.toFixed(0)} ms`);
  });

  it('scrapes with the bearer token and answers the figures by their Prometheus names', async () => {
    const runs = await prometheus.waitForValue('tierflow_runs_finished_total', (samples) => samples.length > 0);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.value).toBe(7);
    expect(runs[0]!.metric).toMatchObject({ __name__: 'tierflow_runs_finished_total', job: 'tierflow', tierflow_status: 'success', otel_scope_name: '@tierflow/runtime' });
    expect(await prometheus.query('sum by (tierflow_tier) (tierflow_hop_duration_count)')).toEqual([{ metric: { tierflow_tier: 'fleet' }, value: 1 }]);
    expect(await prometheus.query('sum(tierflow_hop_duration_sum)')).toEqual([{ metric: {}, value: 7 }]);
    expect(await prometheus.query('sum(gen_ai_client_token_usage_sum)')).toEqual([{ metric: {}, value: 7 }]);
    expect(await prometheus.query('tierflow_queue_depth')).toHaveLength(1);
    expect(scrapes).toBeGreaterThan(0);
    expect(unauthorised).toBe(0);
  });

  it('turns a query Prometheus refuses into an error naming it', async () => {
    await expect(prometheus.query('sum(')).rejects.toThrow(/Prometheus refused sum\(/);
  });
});
