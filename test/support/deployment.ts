import type { TierSlug } from '@tierflow/protocol';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { runtimeOptionsFromEnv, type RuntimeOptions, TierflowClient } from '@tierflow/runtime';
import { startRedisCluster, startRedisServer, uniquePrefix, waitFor, type RedisCluster, type RedisClusterOptions, type RedisServer, type RedisServerOptions } from '@tierflow/testing';

/** A private Redis and the four tiers as four worker processes, as a user runs them. */
export interface Deployment {
  readonly redis: RedisServer;
  readonly runtime: RuntimeOptions;
  readonly client: TierflowClient;
  readonly tiers: TierProcesses;
  /** Everything the workers printed, for diagnosing a failure. */
  readonly logs: string[];
  stop(): Promise<void>;
}

const TIERS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

export interface DeploymentOptions {
  /** The tiers to start, one process each (default: all four). */
  readonly tiers?: readonly TierSlug[];
  readonly redis?: RedisServerOptions;
  /** More environment for some tiers' processes only (a skewed clock, say), over `env`. */
  readonly tierEnv?: Partial<Record<TierSlug, NodeJS.ProcessEnv>>;
  /** How long the workers may take to stop on SIGTERM before they are killed; unbounded when left out. */
  readonly stopGraceMs?: number;
  /** Another checkout's build to run, workers and client (bench/ab.ts); this checkout's when left out. */
  readonly build?: TierflowBuild;
}

/** What a deployment runs of a build of Tierflow: its tier processes and its client. */
export interface TierflowBuild {
  readonly spawnTiers: typeof spawnTiers;
  readonly TierflowClient: typeof TierflowClient;
  readonly runtimeOptionsFromEnv: typeof runtimeOptionsFromEnv;
}

const THIS_BUILD: TierflowBuild = { spawnTiers, TierflowClient, runtimeOptionsFromEnv };

export async function startDeployment(label: string, env: NodeJS.ProcessEnv = {}, options: DeploymentOptions = {}): Promise<Deployment> {
  const redis = await startRedisServer(options.redis);
  const started = await startTiers(label, { REDIS_URL: redis.url, ...env }, options, () => redis.stop());
  return { ...started, redis };
}

/** A private Redis Cluster and the four tiers as four worker processes on it (docs/operations.md#cells). */
export interface ClusterDeployment extends Omit<Deployment, 'redis'> {
  readonly cluster: RedisCluster;
  /** The environment a `tierflow` command needs to reach this deployment. */
  readonly env: NodeJS.ProcessEnv;
}

/** Four tier processes on a cluster started here, spreading their runs over `cells` cells (TIERFLOW_CELLS). */
export async function startClusterDeployment(label: string, cells: number, env: NodeJS.ProcessEnv = {}, cluster: RedisClusterOptions = {}): Promise<ClusterDeployment> {
  const redis = await startRedisCluster(cluster);
  // The URL gives only the scheme and credentials: the seeds say where the cluster is.
  const where = { REDIS_URL: redis.nodes[0]!.url, TIERFLOW_REDIS_CLUSTER: redis.seedList, TIERFLOW_CELLS: String(cells), ...env };
  // After a failover a worker has been seen to take over a minute to finish its graceful stop on
  // a loaded machine (docs/operations.md#cells-and-redis-cluster): the tests do not wait for it.
  const started = await startTiers(label, where, { stopGraceMs: 15_000 }, () => redis.stop());
  return {
    ...started,
    cluster: redis,
    env: { REDIS_URL: where.REDIS_URL, TIERFLOW_REDIS_CLUSTER: where.TIERFLOW_REDIS_CLUSTER, TIERFLOW_CELLS: where.TIERFLOW_CELLS, TIERFLOW_PREFIX: started.runtime.prefix },
  };
}

async function startTiers(label: string, env: NodeJS.ProcessEnv, options: DeploymentOptions, stopRedis: () => Promise<void>): Promise<Omit<Deployment, 'redis'>> {
  const tiers = options.tiers ?? TIERS;
  const build = options.build ?? THIS_BUILD;
  const prefix = uniquePrefix(label);
  // The client connects, and signs, as the workers do.
  const runtime = build.runtimeOptionsFromEnv({ ...process.env, ...env, TIERFLOW_PREFIX: prefix });
  const logs: string[] = [];
  const ready = new Set<TierSlug>();
  // No spans unless a test asks for them: nothing listens on the default OTLP port here. No
  // calibration unless a test asks for it: a file's scenarios share one history, and one scenario's
  // deliberate failures would otherwise lower the next one's confidence.
  const base = { ...process.env, OTEL_TRACES_EXPORTER: 'none', TIERFLOW_CALIBRATION: 'off', TIERFLOW_PREFIX: prefix, ...env };
  const onLine = (tier: TierSlug, line: string): void => {
    logs.push(`${tier} | ${line}`);
    if (line.includes('worker ready')) ready.add(tier);
  };
  const own = options.tierEnv ?? {};
  const processes = joinProcesses([
    build.spawnTiers(
      base,
      onLine,
      tiers.filter((tier) => !own[tier]),
    ),
    ...tiers.filter((tier) => own[tier]).map((tier) => build.spawnTiers({ ...base, ...own[tier] }, onLine, [tier])),
  ]);
  const client = new build.TierflowClient(runtime);
  const stop = async (): Promise<void> => {
    await client.close();
    await stopWithin(processes, options.stopGraceMs ?? null);
    await stopRedis();
  };
  try {
    await waitFor(() => ready.size === tiers.length, { timeoutMs: 45_000, description: `four workers ready; output:\n${logs.join('\n')}` });
  } catch (error) {
    await stop();
    throw error;
  }
  return { runtime, client, tiers: processes, logs, stop };
}

/** SIGTERM, then SIGKILL for whatever has not exited after `graceMs` (null: wait as long as it takes). */
async function stopWithin(processes: TierProcesses, graceMs: number | null): Promise<void> {
  if (graceMs === null) return processes.stop();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  const stopped = processes.stop();
  if ((await Promise.race([stopped, late])) === 'late') {
    for (const child of processes.children.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  clearTimeout(timer);
  await stopped;
}

/** Several groups of tier processes as one. */
function joinProcesses(groups: readonly TierProcesses[]): TierProcesses {
  const exited = Promise.all(groups.map((group) => group.exited)).then(() => undefined);
  return {
    children: new Map(groups.flatMap((group) => [...group.children])),
    exited,
    stop: async () => {
      await Promise.all(groups.map((group) => group.stop()));
    },
  };
}
