import { usePrivateRedis } from '@tierflow/testing/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisClock } from './clock.js';

async function redisNow(redis: ReturnType<typeof usePrivateRedis>['redis']): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

describe('RedisClock', () => {
  const db = usePrivateRedis();
  afterEach(() => vi.restoreAllMocks());

  it("reads Redis's clock, however far this host's wall clock is off", async () => {
    // This host an hour fast: the clock must not follow it.
    vi.spyOn(Date, 'now').mockImplementation(() => performance.timeOrigin + performance.now() + 3600_000);
    const clock = await RedisClock.start(db.redis);
    try {
      const before = await redisNow(db.redis);
      const read = clock.now();
      const after = await redisNow(db.redis);
      expect(read).toBeGreaterThanOrEqual(Math.floor(before) - 5);
      expect(read).toBeLessThanOrEqual(Math.ceil(after) + 5);
    } finally {
      clock.stop();
    }
  });

  it('keeps its last reading when a measurement fails', async () => {
    const clock = await RedisClock.start(db.redis);
    try {
      const failing = vi.spyOn(db.redis, 'time').mockRejectedValue(new Error('connection lost'));
      await expect(clock.sync()).rejects.toThrow('connection lost');
      failing.mockRestore();
      expect(Math.abs(clock.now() - (await redisNow(db.redis)))).toBeLessThan(50);
    } finally {
      clock.stop();
    }
  });
});
