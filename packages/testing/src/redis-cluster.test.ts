import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pingRedis } from './ping.js';
import { redisClient } from './redis-client.js';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { uniquePrefix } from './unique-prefix.js';
import { useRedisCluster } from './vitest.js';
import { waitFor } from './wait-for.js';

describe('a 3-master Redis Cluster', () => {
  const db = useRedisCluster();

  it('serves on private loopback ports, each master with a share of the slots', async () => {
    const { cluster } = db;
    expect(cluster.nodes).toHaveLength(3);
    for (const node of cluster.nodes) {
      expect(node.url).toBe(`redis://127.0.0.1:${node.port}`);
      expect(node.port).not.toBe(6379);
    }
    expect(cluster.seeds).toEqual(cluster.nodes.map((node) => `127.0.0.1:${node.port}`));
    expect(cluster.seedList).toBe(cluster.seeds.join(','));
    const masters = await cluster.masters();
    expect(masters.map((master) => master.port).sort()).toEqual(cluster.nodes.map((node) => node.port).sort());
    expect(await db.redis.cluster('INFO')).toContain('cluster_state:ok');
  });

  it('puts keys with different hash tags on different masters', async () => {
    const keys = Array.from({ length: 30 }, (_, index) => `{tag-${index}}:key`);
    await Promise.all(keys.map((key) => db.redis.set(key, 'x')));
    const expected = new Map<number, number>();
    for (const key of keys) {
      const { port } = await db.cluster.masterOf(key);
      expected.set(port, (expected.get(port) ?? 0) + 1);
    }
    expect(expected.size).toBe(3);
    for (const master of await db.cluster.masters()) {
      const direct = redisClient(master.url);
      try {
        expect(await direct.dbsize()).toBe(expected.get(master.port));
      } finally {
        direct.disconnect();
      }
    }
  });

  it('carries sharded pub/sub to a subscriber on every shard', async () => {
    // One channel per master: hash tags until each master has one.
    const channels = new Map<number, string>();
    for (let index = 0; channels.size < 3; index++) {
      const channel = `${uniquePrefix(`channel-${index}`)}:events`;
      const { port } = await db.cluster.masterOf(channel);
      if (!channels.has(port)) channels.set(port, channel);
    }
    const subscriber = db.cluster.client({ shardedSubscribers: true });
    const received: string[] = [];
    subscriber.on('smessage', (channel: string, message: string) => received.push(`${channel} ${message}`));
    // Each SSUBSCRIBE may name channels of one slot only.
    for (const channel of channels.values()) await subscriber.ssubscribe(channel);
    for (const channel of channels.values()) expect(await db.redis.spublish(channel, 'hello')).toBe(1);
    await waitFor(() => received.length === channels.size, { description: 'every sharded message' });
    expect(received.sort()).toEqual([...channels.values()].map((channel) => `${channel} hello`).sort());
    subscriber.disconnect();
  });
});

describe('with a replica per master and a password', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ replicasPerMaster: 1, password: 'se:cret' });
  });
  afterAll(() => cluster?.stop());

  it('asks for the password, which node urls carry', async () => {
    const [node] = cluster.nodes;
    const anonymous = new Redis({ host: '127.0.0.1', port: node?.port ?? 0, lazyConnect: true });
    anonymous.on('error', () => undefined);
    const authorized = redisClient(node?.url ?? '');
    try {
      await expect(anonymous.ping()).rejects.toThrow(/NOAUTH/);
      expect(await authorized.ping()).toBe('PONG');
    } finally {
      anonymous.disconnect();
      authorized.disconnect();
    }
    expect(cluster.nodes).toHaveLength(6);
    expect(await cluster.masters()).toHaveLength(3);
  });

  it('keeps a key readable through the cluster client after its master fails', async () => {
    const redis = cluster.client();
    const key = `${uniquePrefix('failover')}:key`;
    const master = await cluster.masterOf(key);
    // WAIT counts replicas that have this connection's writes: write and wait on one connection to the master.
    const direct = redisClient(master.url);
    try {
      await direct.set(key, 'kept');
      expect(await direct.wait(1, 5_000)).toBe(1);
    } finally {
      direct.disconnect();
    }
    expect(await redis.get(key)).toBe('kept');

    const heir = await cluster.failover(master.port);
    expect(heir).not.toBe(master.port);
    expect(await pingRedis(master.port)).toBe(false);
    expect((await cluster.masterOf(key)).port).toBe(heir);
    const masters = (await cluster.masters()).map((node) => node.port);
    expect(masters).toHaveLength(3);
    expect(masters).toContain(heir);
    expect(masters).not.toContain(master.port);
    expect(await redis.get(key)).toBe('kept');
    await redis.set(key, 'after');
    expect(await redis.get(key)).toBe('after');
  });
});

describe('stop', () => {
  it('closes the clients, ends every node and removes their directories, once', async () => {
    const cluster = await startRedisCluster({ masters: 1 });
    let dirs: string[];
    const redis = cluster.client();
    try {
      expect(await redis.set('{x}:k', '1')).toBe('OK');
      dirs = await Promise.all(
        cluster.nodes.map(async (node) => {
          const direct = redisClient(node.url);
          const [, dir] = (await direct.config('GET', 'dir')) as [string, string];
          direct.disconnect();
          return dir;
        }),
      );
      expect(dirs.every((dir) => existsSync(`${dir}/nodes.conf`))).toBe(true);
    } finally {
      await cluster.stop();
    }
    await cluster.stop();
    expect(redis.status).toBe('end');
    for (const node of cluster.nodes) expect(await pingRedis(node.port)).toBe(false);
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
    expect(() => cluster.client()).toThrow(/stopped/);
  });

  it('refuses counts it cannot build', async () => {
    await expect(startRedisCluster({ masters: 0 })).rejects.toThrow(RangeError);
    await expect(startRedisCluster({ replicasPerMaster: 1.5 })).rejects.toThrow(RangeError);
  });
});
