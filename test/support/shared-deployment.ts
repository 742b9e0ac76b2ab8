import { redisClient } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startDeployment, type Deployment } from './deployment.js';

/** One deployment for a whole test file, with a Redis client and the Fleet's queue to add jobs to directly. */
export interface SharedDeployment {
  readonly deployment: Deployment;
  readonly redis: Redis;
  readonly fleet: Queue;
}

/** Starts the deployment before the file's tests and stops it after them. */
export function useDeployment(label: string, env: NodeJS.ProcessEnv = {}): SharedDeployment {
  let current: SharedDeployment | undefined;
  beforeAll(async () => {
    const deployment = await startDeployment(label, env);
    const redis = redisClient(deployment.redis.url);
    current = { deployment, redis, fleet: new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix }) };
  }, 60_000);
  afterAll(async () => {
    await current?.fleet.close();
    current?.redis.disconnect();
    await current?.deployment.stop();
    // Four workers finishing and Redis stopping: seconds alone, longer beside the rest of the suite.
  }, 120_000);
  const started = (): SharedDeployment => {
    if (!current) throw new Error(`the ${label} deployment is not running: use it inside a test`);
    return current;
  };
  return {
    get deployment() {
      return started().deployment;
    },
    get redis() {
      return started().redis;
    },
    get fleet() {
      return started().fleet;
    },
  };
}
