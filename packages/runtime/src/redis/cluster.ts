import type { ConnectionOptions } from 'node:tls';
import { TierflowError } from '@tierflow/protocol';
import { Cluster } from 'ioredis';

/** Where a deployment's Redis is: one server (the URL), or a Redis Cluster reached through seed nodes. */
export interface RedisTarget {
  readonly redisUrl: string;
  /** Seed nodes (`host:port`) of a Redis Cluster; null for one server. The URL then gives only the scheme, user and password. */
  readonly redisCluster: readonly string[] | null;
}

/**
 * A seed list as TIERFLOW_REDIS_CLUSTER gives it (`host:port,host:port`), checked; null for none.
 *
 * @throws TierflowError (code `invalid_config`) for an entry that is not `host:port`.
 */
export function parseClusterSeeds(list: string | undefined): string[] | null {
  if (list === undefined || list.trim() === '') return null;
  const seeds = list.split(',').map((seed) => seed.trim());
  const bad = seeds.filter((seed) => seedOf(seed) === null);
  if (bad.length > 0) {
    throw TierflowError.permanent(`TIERFLOW_REDIS_CLUSTER: ${bad.map((seed) => JSON.stringify(seed)).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not host:port`, { code: 'invalid_config' });
  }
  return seeds;
}

function seedOf(seed: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s[\]]+):(\d{1,5})$/.exec(seed);
  const port = Number(match?.[2]);
  return match && port > 0 && port < 65_536 ? { host: match[1]!.replace(/^\[|\]$/g, ''), port } : null;
}

/**
 * An ioredis cluster client on `seeds`, logging in as the URL's user (TLS for `rediss://`).
 * Commands wait through a failover, as they wait through a reconnect to one server: BullMQ needs
 * `maxRetriesPerRequest: null`, and a master's replica takes a few seconds to be promoted, so a
 * command moved or refused meanwhile is tried again for longer than ioredis's default.
 * Sharded pub/sub (SSUBSCRIBE) gets a subscriber per shard, so each cell's control channel is
 * heard from the master that holds the cell.
 */
export function connectCluster(redisUrl: string, seeds: readonly string[], tls: ConnectionOptions | undefined): Cluster {
  const url = new URL(redisUrl);
  if (!/^\/?0?$/.test(url.pathname)) throw TierflowError.permanent('a Redis Cluster has one database, 0: drop the /<db> from the Redis URL', { code: 'invalid_config' });
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return new Cluster(
    seeds.map((seed) => seedOf(seed)!),
    {
      redisOptions: { maxRetriesPerRequest: null, ...(username ? { username } : {}), ...(password ? { password } : {}), ...(tls ? { tls } : {}) },
      shardedSubscribers: true,
      maxRedirections: 64,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 200,
    },
  );
}
