import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { redisClient } from './redis-client.js';
import { startRedisCluster, type RedisCluster, type RedisClusterOptions } from './redis-cluster.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

/** The private Redis of a test file, once its tests are running. */
export interface PrivateRedis {
  readonly server: RedisServer;
  /** A client on it, shared by the file's tests. */
  readonly redis: Redis;
}

/**
 * Starts a private `redis-server` and a client on it before the file's tests, and stops both
 * after them. Kept apart from the package's main entry so scripts that are not tests (benchmarks)
 * can use the rest without loading vitest.
 *
 * ```ts
 * const db = usePrivateRedis();
 * it('writes', async () => { await db.redis.set(`${uniquePrefix('x')}:k`, '1'); });
 * ```
 */
export function usePrivateRedis(): PrivateRedis {
  let started: PrivateRedis | undefined;
  beforeAll(async () => {
    const server = await startRedisServer();
    started = { server, redis: redisClient(server.url) };
  });
  afterAll(async () => {
    started?.redis.disconnect();
    await started?.server.stop();
  });
  const running = (): PrivateRedis => {
    if (!started) throw new Error('the private Redis is not running: use it inside a test');
    return started;
  };
  return {
    get server() {
      return running().server;
    },
    get redis() {
      return running().redis;
    },
  };
}

/** The private Redis Cluster of a test file, once its tests are running. */
export interface PrivateRedisCluster {
  readonly cluster: RedisCluster;
  /** A cluster client on it, shared by the file's tests. */
  readonly redis: Cluster;
}

/**
 * Starts a private Redis Cluster and a cluster client on it before the file's tests, and stops
 * both after them: {@link usePrivateRedis} for code that must work on a cluster.
 *
 * ```ts
 * const db = useRedisCluster({ replicasPerMaster: 1 });
 * it('writes', async () => { await db.redis.set(`${uniquePrefix('x')}:k`, '1'); });
 * ```
 */
export function useRedisCluster(options: RedisClusterOptions = {}): PrivateRedisCluster {
  let started: PrivateRedisCluster | undefined;
  beforeAll(async () => {
    const cluster = await startRedisCluster(options);
    started = { cluster, redis: cluster.client() };
  });
  // Stopping the cluster closes its clients too.
  afterAll(() => started?.cluster.stop());
  const running = (): PrivateRedisCluster => {
    if (!started) throw new Error('the private Redis Cluster is not running: use it inside a test');
    return started;
  };
  return {
    get cluster() {
      return running().cluster;
    },
    get redis() {
      return running().redis;
    },
  };
}
