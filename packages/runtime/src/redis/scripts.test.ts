import { createHash } from 'node:crypto';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { runScript, type RedisScript } from './scripts.js';

const ECHO: RedisScript = { lua: `return { KEYS[1], ARGV[1], ARGV[2] }` };

describe('runScript, on a real Redis', () => {
  const db = usePrivateRedis();

  it('runs a script by its SHA, and again after Redis forgot it', async () => {
    const sha = createHash('sha1').update(ECHO.lua).digest('hex');
    expect(await runScript(db.redis, ECHO, ['{t}:k'], ['a', 2])).toEqual(['{t}:k', 'a', '2']);
    expect(await db.redis.script('EXISTS', sha)).toEqual([1]);
    await db.redis.script('FLUSH');
    expect(await runScript(db.redis, ECHO, ['{t}:k2'], ['b', 3])).toEqual(['{t}:k2', 'b', '3']);
  });

  it('carries binary and non-ASCII arguments byte for byte', async () => {
    const STORE: RedisScript = { lua: `redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[2]); return 1` };
    const binary = Buffer.from([0xde, 0x00, 0xff, 0x80, 0x0d, 0x0a]);
    await runScript(db.redis, STORE, ['{t}:bin', '{t}:text'], [binary, 'clé ✓']);
    expect(await db.redis.getBuffer('{t}:bin')).toEqual(binary);
    expect(await db.redis.get('{t}:text')).toBe('clé ✓');
  });
});
