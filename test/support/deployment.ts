import type { TierSlug } from '@tierflow/protocol';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { resolveRuntimeOptions, type RuntimeOptions, signingFromEnv, TierflowClient } from '@tierflow/runtime';
import { startRedisServer, uniquePrefix, waitFor, type RedisServer, type RedisServerOptions } from '@tierflow/testing';

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
}

export async function startDeployment(label: string, env: NodeJS.ProcessEnv = {}, options: DeploymentOptions = {}): Promise<Deployment> {
  const tiers = options.tiers ?? TIERS;
  const redis = await startRedisServer(options.redis);
  const prefix = uniquePrefix(label);
  // The client signs as the workers do when the environment gives them a key.
  const runtime = resolveRuntimeOptions({ redisUrl: redis.url, prefix, signing: signingFromEnv({ ...process.env, ...env }) });
  const logs: string[] = [];
  const ready = new Set<TierSlug>();
  // No spans unless a test asks for them: nothing listens on the default OTLP port here.
  const base = { ...process.env, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: redis.url, TIERFLOW_PREFIX: prefix, ...env };
  const onLine = (tier: TierSlug, line: string): void => {
    logs.push(`${tier} | ${line}`);
    if (line.includes('worker ready')) ready.add(tier);
  };
  const own = options.tierEnv ?? {};
  const processes = joinProcesses([
    spawnTiers(
      base,
      onLine,
      tiers.filter((tier) => !own[tier]),
    ),
    ...tiers.filter((tier) => own[tier]).map((tier) => spawnTiers({ ...base, ...own[tier] }, onLine, [tier])),
  ]);
  const client = new TierflowClient(runtime);
  const stop = async (): Promise<void> => {
    await client.close();
    await processes.stop();
    await redis.stop();
  };
  try {
    await waitFor(() => ready.size === tiers.length, { timeoutMs: 20_000, description: `four workers ready; output:\n${logs.join('\n')}` });
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis, runtime, client, tiers: processes, logs, stop };
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
