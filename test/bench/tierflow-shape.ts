import { startDeployment } from '../support/deployment.js';
import type { BenchHalf } from './bench-half.js';
import type { ObjectiveFile } from '@tierflow/runtime';
import { benchObjective } from './shape.js';

/** The Tierflow half: the four tier processes on a private Redis, running the shared objective (or another of the same shape). */
export async function startTierflowShape(env: NodeJS.ProcessEnv, objective: ObjectiveFile = benchObjective): Promise<BenchHalf> {
  const deployment = await startDeployment('bench-tierflow', { TIERFLOW_LOG: 'silent', ...env });
  const { client } = deployment;
  return {
    redisUrl: deployment.redis.url,
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
