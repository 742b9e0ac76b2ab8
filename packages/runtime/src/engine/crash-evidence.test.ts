import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { CrashEvidence } from './crash-evidence.js';

describe('crash evidence, on a real Redis', () => {
  const db = usePrivateRedis();
  const evidence = () => new CrashEvidence(db.redis, (jobId) => `{t}:crashes:fleet:${jobId}`, 60_000);

  it('counts a run alone that never ended as a death alone, and one that ended as none', async () => {
    expect(await evidence().runAlone('a', 'token-1')).toBe(0);
    // The worker died: no end. The next run alone finds the mark.
    expect(await evidence().runAlone('a', 'token-2')).toBe(1);
    await evidence().ended('a', 'token-2');
    expect(await evidence().runAlone('a', 'token-3')).toBe(1);
    expect(await evidence().runAlone('a', 'token-4')).toBe(2);
    expect(await db.redis.pttl('{t}:crashes:fleet:a')).toBeGreaterThan(59_000);
  });

  it('keeps jobs apart', async () => {
    await evidence().runAlone('b', 'token-1');
    expect(await evidence().runAlone('c', 'token-1')).toBe(0);
  });

  it('reads a record it did not write as no evidence, rather than failing the job', async () => {
    await db.redis.hset('{t}:crashes:fleet:d', 'alone_deaths', 'many', 'other', 'x');
    expect(await evidence().runAlone('d', 'token-1')).toBe(0);
    await db.redis.hset('{t}:crashes:fleet:e', 'alone_deaths', '-3');
    expect(await evidence().runAlone('e', 'token-1')).toBe(0);
  });
});
