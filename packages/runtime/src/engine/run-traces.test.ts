import { redisClient, uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { controlKeys } from '../redis/keys.js';
import type { TierLogger } from '../policy/handler.js';
import { RunTraces } from './run-traces.js';

const TRACE = (n: number) => n.toString(16).padStart(32, '0');

describe('RunTraces, marking runs exported in a real Redis', () => {
  const db = usePrivateRedis();
  const clients: ReturnType<typeof redisClient>[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });

  function traces(limit?: number) {
    const redis = redisClient(db.server.url);
    clients.push(redis);
    const keys = controlKeys(`{${uniquePrefix('traces')}}`);
    const warnings: string[] = [];
    const log: TierLogger = { info: () => undefined, warn: (message) => warnings.push(message) };
    return { redis, keys, warnings, traces: new RunTraces(redis, keys, 60_000, log, limit) };
  }

  it('marks the runs it recorded among the exported traces, with the trace id and its time to live, and no others', async () => {
    const { redis, keys, traces: runTraces } = traces();
    runTraces.recorded(TRACE(1), 'root-a');
    runTraces.recorded(TRACE(2), 'root-b');
    await runTraces.exported(new Set([TRACE(1), TRACE(3)]));
    expect(await redis.get(keys.traceExported('root-a'))).toBe(TRACE(1));
    expect(await redis.pttl(keys.traceExported('root-a'))).toBeGreaterThan(50_000);
    expect(await redis.exists(keys.traceExported('root-b'))).toBe(0);
  });

  it('forgets the oldest runs beyond its limit', async () => {
    const { redis, keys, traces: runTraces } = traces(2);
    runTraces.recorded(TRACE(1), 'root-a');
    runTraces.recorded(TRACE(2), 'root-b');
    runTraces.recorded(TRACE(3), 'root-c');
    await runTraces.exported(new Set([TRACE(1), TRACE(2), TRACE(3)]));
    expect(await redis.exists(keys.traceExported('root-a'))).toBe(0);
    expect(await redis.get(keys.traceExported('root-c'))).toBe(TRACE(3));
  });

  it('never throws when Redis cannot take the marks: it warns', async () => {
    const { redis, warnings, traces: runTraces } = traces();
    runTraces.recorded(TRACE(1), 'root-a');
    redis.disconnect();
    await expect(runTraces.exported(new Set([TRACE(1)]))).resolves.toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining('could not mark')]);
  });

  it('marks nothing, and says nothing, once its worker closed', async () => {
    const { redis, keys, warnings, traces: runTraces } = traces();
    runTraces.recorded(TRACE(1), 'root-a');
    runTraces.close();
    await runTraces.exported(new Set([TRACE(1)]));
    expect(await redis.exists(keys.traceExported('root-a'))).toBe(0);
    expect(warnings).toEqual([]);
  });
});
