import { describe, expect, it } from 'vitest';
import { beadsHandle, type Beads } from './beads.js';

const METHODS = ['addDecayed', 'delete', 'exists', 'get', 'getMany', 'keys', 'ref', 'set', 'setIfAbsent', 'setMany'];

/** A store that records which method was called, and has more methods than a handle may show. */
function recordingStore(calls: string[]): Beads & { withTier(): never; redisKey(): string } {
  return new Proxy({} as Beads & { withTier(): never; redisKey(): string }, {
    get:
      (_target, name) =>
      (...args: unknown[]) => {
        calls.push(`${String(name)}(${args.map((arg) => JSON.stringify(arg) ?? 'undefined').join(', ')})`);
        return name === 'ref' ? 'beads:task/x' : Promise.resolve(null);
      },
  });
}

describe('beadsHandle', () => {
  it('shows the Beads methods and nothing else: no withTier, no raw keys', () => {
    const handle = beadsHandle(recordingStore([]));
    expect(Object.keys(handle).sort()).toEqual(METHODS);
    expect('withTier' in handle).toBe(false);
    expect('redisKey' in handle).toBe(false);
    expect(Object.isFrozen(handle)).toBe(true);
  });

  it('passes each call and its arguments to the store', async () => {
    const calls: string[] = [];
    const handle = beadsHandle(recordingStore(calls));
    await handle.get('task/x');
    await handle.set('task/x', 1, { ttlMs: 5 });
    await handle.setIfAbsent('task/y', 2);
    expect(handle.ref('task/x')).toBe('beads:task/x');
    expect(calls).toEqual(['get("task/x", undefined)', 'set("task/x", 1, {"ttlMs":5})', 'setIfAbsent("task/y", 2, undefined)', 'ref("task/x")']);
  });
});
