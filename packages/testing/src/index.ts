/**
 * Test helpers for Tierflow: a private `redis-server` per test file (never the machine's shared
 * one), polling with a deadline instead of sleeping, and unique hash-tagged key prefixes.
 *
 * ```ts
 * import { redisClient, startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
 *
 * let server: RedisServer;
 * beforeAll(async () => { server = await startRedisServer(); });
 * afterAll(() => server.stop());
 *
 * it('sees the write', async () => {
 *   const redis = redisClient(server.url);
 *   const key = `${uniquePrefix('example')}:x`;
 *   await redis.set(key, '1');
 *   await waitFor(() => redis.get(key), { description: `${key} to be set` });
 *   redis.disconnect();
 * });
 * ```
 *
 * `startRedisCluster()` starts a private Redis Cluster the same way, for code that must work on one.
 *
 * In a vitest file, `usePrivateRedis()` (or `useRedisCluster()`) from `@tierflow/testing/vitest`
 * does the start and stop.
 */
export { makeTestCertificates } from './certificates.js';
export type { TestCertificates } from './certificates.js';
export { completion, FakeOpenAiServer, toolCallsCompletion } from './fake-openai.js';
export type { FakeReply, FakeRequest, FakeToolCall, FakeUsage } from './fake-openai.js';
export { findFreePort } from './free-port.js';
export { findRedisServerBinary } from './redis-binary.js';
export { redisClient } from './redis-client.js';
export { startRedisCluster } from './redis-cluster.js';
export type { RedisCluster, RedisClusterNode, RedisClusterOptions } from './redis-cluster.js';
export { startRequestCounter } from './request-counter.js';
export type { RequestCounter } from './request-counter.js';
export { startRedisServer } from './redis-server.js';
export type { RedisServer, RedisServerOptions } from './redis-server.js';
export { isAlive, terminate } from './terminate.js';
export { uniquePrefix } from './unique-prefix.js';
export { waitFor } from './wait-for.js';
export type { WaitForOptions } from './wait-for.js';
