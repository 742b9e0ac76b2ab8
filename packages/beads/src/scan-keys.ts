import { Cluster, type Redis } from 'ioredis';

/** A connection to Redis: one server, or a Redis Cluster through ioredis's cluster client. */
export type RedisClient = Redis | Cluster;

// SCAN's COUNT: a hint of how many keys Redis looks at per call, not how many it returns.
const SCAN_COUNT = 500;

/**
 * Every key matching a glob, by SCAN, never KEYS, so Redis is not blocked on a large keyspace; a
 * key written or removed during the walk may or may not be listed. A Cluster's keys are spread over
 * its masters, and SCAN sees one server's: each master is walked.
 */
export async function scanKeys(redis: RedisClient, match: string): Promise<string[]> {
  const servers = redis instanceof Cluster ? await masters(redis) : [redis];
  // SCAN may return a key more than once; the set keeps one.
  const found = new Set<string>();
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, batch] = await server.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT);
      for (const key of batch) found.add(key);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...found];
}

/** A Cluster's masters: known once it is ready (a client just made knows none, or some). */
async function masters(cluster: Cluster): Promise<Redis[]> {
  if (cluster.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      const ready = (): void => {
        cluster.off('end', ended);
        resolve();
      };
      const ended = (): void => {
        cluster.off('ready', ready);
        reject(new Error('the cluster connection ended before it was ready'));
      };
      cluster.once('ready', ready);
      cluster.once('end', ended);
    });
  }
  return cluster.nodes('master');
}
