import { describe, expect, it } from 'vitest';
import { connectCluster, parseClusterSeeds } from './cluster.js';
import { runtimeOptionsFromEnv } from '../config/options.js';

describe('a Redis Cluster as TIERFLOW_REDIS_CLUSTER names it', () => {
  it('reads seed nodes, IPv6 in brackets too; none means one server', () => {
    expect(parseClusterSeeds('10.0.0.1:7001, redis-2:7002,[::1]:7003')).toEqual(['10.0.0.1:7001', 'redis-2:7002', '[::1]:7003']);
    expect(parseClusterSeeds(undefined)).toBeNull();
    expect(parseClusterSeeds('  ')).toBeNull();
  });

  it('refuses what is not host:port, naming each', () => {
    expect(() => parseClusterSeeds('redis-1,redis-2:0,redis-3:70000,redis-4:7004')).toThrow(/TIERFLOW_REDIS_CLUSTER: "redis-1", "redis-2:0", "redis-3:70000" are not host:port/);
  });

  it('reaches the runtime options, and leaves one server alone without it', () => {
    expect(runtimeOptionsFromEnv({ TIERFLOW_REDIS_CLUSTER: 'a:1,b:2' }).redisCluster).toEqual(['a:1', 'b:2']);
    expect(runtimeOptionsFromEnv({}).redisCluster).toBeNull();
  });

  it('refuses a database other than 0, which a cluster does not have', () => {
    expect(() => connectCluster('redis://127.0.0.1:6379/2', ['127.0.0.1:7001'], undefined)).toThrow(/a Redis Cluster has one database, 0/);
  });
});
