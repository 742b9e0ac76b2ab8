import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { findFreePort, terminate, waitFor } from '@tierflow/testing';
import { z } from 'zod';

/**
 * A real Prometheus (the Debian package's `prometheus` binary) for end-to-end tests: its own free
 * port, a temporary config and storage directory, a 1 s scrape interval, and the HTTP query API
 * read through zod.
 */

/** Something for Prometheus to scrape. */
export interface ScrapeTarget {
  /** The scrape job's name (the `job` label). */
  readonly job: string;
  /** `host:port` of the endpoint. */
  readonly address: string;
  /** The path, `/metrics` unless given. */
  readonly path?: string;
  /** Sent as `Authorization: Bearer …` (written to a credentials file, as infra/prometheus does). */
  readonly bearerToken?: string;
}

export interface PrometheusOptions {
  /** Seconds between scrapes (and rule evaluations); 1 unless given. */
  readonly scrapeIntervalS?: number;
}

/** One sample of an instant vector: its labels and value. */
export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Evaluates `promql` now (an instant query); its samples, or a thrown error naming Prometheus's. */
  query(promql: string): Promise<Sample[]>;
  /** Polls `promql` until `accept` likes its samples; answers them. Throws on the deadline with the last samples seen. */
  waitForValue(promql: string, accept: (samples: readonly Sample[]) => boolean, options?: { timeoutMs?: number; description?: string }): Promise<Sample[]>;
  /** Waits until every target has been scraped and is `up`, answering each job's last scrape error meanwhile. */
  waitForTargetsUp(options?: { timeoutMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

/** The `prometheus` binary on PATH (or PROMETHEUS_BINARY), or null. */
export function findPrometheusBinary(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = env.PROMETHEUS_BINARY ? [env.PROMETHEUS_BINARY] : (env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'prometheus'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

/** A scrape config (YAML; JSON strings are YAML strings) for `targets`, and the token files it names under `dir`. */
export function scrapeConfig(targets: readonly ScrapeTarget[], dir: string, intervalS: number): { yaml: string; tokenFiles: Map<string, string> } {
  const tokenFiles = new Map<string, string>();
  const jobs = targets.map((target, index) => {
    const lines = [
      `  - job_name: ${JSON.stringify(target.job)}`,
      `    metrics_path: ${JSON.stringify(target.path ?? '/metrics')}`,
      `    static_configs:`,
      `      - targets: [${JSON.stringify(target.address)}]`,
    ];
    if (target.bearerToken !== undefined) {
      // In a file, as infra/prometheus does: the token stays out of the config (and its logs).
      const file = join(dir, `token-${index}`);
      tokenFiles.set(file, target.bearerToken);
      lines.push(`    authorization:`, `      type: Bearer`, `      credentials_file: ${JSON.stringify(file)}`);
    }
    return lines.join('\n');
  });
  const yaml = [`global:`, `  scrape_interval: ${intervalS}s`, `  scrape_timeout: ${intervalS}s`, `  evaluation_interval: ${intervalS}s`, `scrape_configs:`, ...jobs, ''].join('\n');
  return { yaml, tokenFiles };
}

const vectorSchema = z.array(z.object({ metric: z.record(z.string(), z.string()), value: z.tuple([z.number(), z.string()]) }));
const queryAnswerSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('success'),
    data: z.discriminatedUnion('resultType', [
      z.object({ resultType: z.literal('vector'), result: vectorSchema }),
      z.object({ resultType: z.literal('scalar'), result: z.tuple([z.number(), z.string()]) }),
    ]),
  }),
  z.object({ status: z.literal('error'), errorType: z.string().optional(), error: z.string() }),
]);
const targetsAnswerSchema = z.object({
  status: z.literal('success'),
  data: z.object({ activeTargets: z.array(z.object({ scrapePool: z.string(), health: z.string(), lastError: z.string() })) }),
});

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  // Prometheus answers a bad query 400 with the same JSON shape: read it for its error.
  return response.json();
}

/** Parses an answer of `/api/v1/query` into samples (a scalar as one sample without labels). */
export function parseQueryAnswer(promql: string, body: unknown): Sample[] {
  const answer = queryAnswerSchema.parse(body);
  if (answer.status === 'error') throw new Error(`Prometheus refused ${promql}: ${answer.error}`);
  const { data } = answer;
  if (data.resultType === 'scalar') return [{ metric: {}, value: Number(data.result[1]) }];
  return data.result.map((sample) => ({ metric: sample.metric, value: Number(sample.value[1]) }));
}

const running = new Set<ChildProcess>();
let hooked = false;
/** A test that dies leaves no Prometheus behind. */
function reapOnExit(child: ChildProcess): void {
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const each of running) each.kill('SIGKILL');
    });
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/**
 * Starts Prometheus scraping `targets`; resolves once it is ready (not yet once it has scraped:
 * {@link PrometheusServer.waitForTargetsUp}). Prometheus 2.42 hands new targets to its scrape loops
 * at most every 5 s, so the first scrape comes about 5 s after the start: start one per test file.
 */
export async function startPrometheus(targets: readonly ScrapeTarget[], options: PrometheusOptions = {}): Promise<PrometheusServer> {
  const binary = findPrometheusBinary();
  if (!binary) throw new Error('prometheus not found on PATH: install Debian’s `prometheus` package (.ci/run does), or set PROMETHEUS_BINARY');
  const dir = mkdtempSync(join(tmpdir(), 'tierflow-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  const { yaml, tokenFiles } = scrapeConfig(targets, dir, options.scrapeIntervalS ?? 1);
  for (const [file, token] of tokenFiles) writeFileSync(file, token, { mode: 0o600 });
  writeFileSync(config, yaml);
  // Another process may take the free port first: try again on a fresh one.
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort();
    const output: string[] = [];
    const child = spawn(binary, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    reapOnExit(child);
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    const exited = new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited')));
    const ready = waitFor(async () => (await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) })).ok, { timeoutMs: 20_000, description: `Prometheus on ${url} to be ready` });
    const outcome = await Promise.race([ready.then(() => 'ready' as const), exited]).catch(async (error: unknown) => {
      await terminate(child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`${error instanceof Error ? error.message : String(error)}; its output:\n${output.join('')}`, { cause: error });
    });
    if (outcome === 'exited') {
      ready.catch(() => undefined);
      if (attempt < 3 && output.join('').includes('address already in use')) continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`prometheus exited as it started (code ${child.exitCode}):\n${output.join('')}`);
    }
    return server(child, url, dir, output);
  }
}

function server(child: ChildProcess, url: string, dir: string, output: readonly string[]): PrometheusServer {
  const query = async (promql: string): Promise<Sample[]> => parseQueryAnswer(promql, await getJson(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`));
  let last: Sample[] | null = null;
  return {
    url,
    query,
    async waitForValue(promql, accept, options = {}) {
      try {
        return await waitFor(
          async () => {
            last = await query(promql);
            return accept(last) ? last : null;
          },
          { timeoutMs: options.timeoutMs ?? 20_000, intervalMs: 250, description: options.description ?? promql },
        );
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; last samples of ${promql}: ${JSON.stringify(last)}`, { cause: error });
      }
    },
    async waitForTargetsUp(options = {}) {
      let seen = '';
      await waitFor(
        async () => {
          const { data } = targetsAnswerSchema.parse(await getJson(`${url}/api/v1/targets?state=active`));
          seen = data.activeTargets.map((target) => `${target.scrapePool} ${target.health}${target.lastError ? ` (${target.lastError})` : ''}`).join('; ');
          return data.activeTargets.length > 0 && data.activeTargets.every((target) => target.health === 'up');
        },
        { timeoutMs: options.timeoutMs ?? 20_000, intervalMs: 100, description: 'every target up' },
      ).catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; targets: ${seen}; Prometheus said:\n${output.join('')}`, { cause: error });
      });
    },
    async stop() {
      await terminate(child, 'SIGTERM', 10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
