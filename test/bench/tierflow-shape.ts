import { startClusterDeployment, startDeployment, type TierflowBuild } from '../support/deployment.js';
import type { BenchHalf } from './bench-half.js';
import type { ObjectiveFile } from '@tierflow/runtime';
import type { RedisServerOptions } from '@tierflow/testing';
import { benchObjective } from './shape.js';

/** Where a Tierflow half keeps its queues: one private server (TIERFLOW_CELLS from the env), or a private cluster. */
export interface ShapeStore {
  /** Masters of a private Redis Cluster, with `cells` cells over them. */
  readonly cluster?: { readonly masters: number; readonly cells: number };
  /** How the private server runs (its append-only file, say); not for a cluster. */
  readonly redis?: RedisServerOptions;
}

/** The Tierflow half: the four tier processes on a private Redis, running the shared objective (or another of the same shape); this checkout's build unless `build` names another. */
export async function startTierflowShape(env: NodeJS.ProcessEnv, objective: ObjectiveFile = benchObjective, store: ShapeStore = {}, build?: TierflowBuild): Promise<BenchHalf> {
  const quiet = { TIERFLOW_LOG: 'silent', ...env };
  const deployment = store.cluster
    ? await startClusterDeployment('bench-tierflow', store.cluster.cells, quiet, { masters: store.cluster.masters })
    : await startDeployment('bench-tierflow', quiet, { ...(build ? { build } : {}), ...(store.redis ? { redis: store.redis } : {}) });
  const redisUrls = 'cluster' in deployment ? (await deployment.cluster.masters()).map((master) => master.url) : [deployment.redis.url];
  const { client } = deployment;
  return {
    redisUrls,
    workerPids: [...deployment.tiers.children.values()].map((child) => child.pid!),
    enqueue: () => client.enqueue(objective),
    async finished(id, timeoutMs) {
      const outcome = await client.waitForResult(id, { timeoutMs });
      if (outcome.payload.status !== 'success') throw new Error(`root ${id} ended ${outcome.payload.status}`);
      if (env.TIERFLOW_KEYS_DIR && !outcome.signature) throw new Error(`root ${id} answered unsigned in a deployment that signs`);
    },
    stop: () => deployment.stop(),
  };
}
