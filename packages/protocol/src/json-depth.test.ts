import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeepAt } from './json-depth.js';

const nested = (depth: number, leaf: unknown = 'x'): unknown => {
  let value: unknown = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value };
  return value;
};

describe('tooDeepAt', () => {
  it.each<[string, unknown, number, (string | number)[] | null]>([
    ['a scalar', 'x', 1, null],
    ['null', null, 1, null],
    ['an empty object at the limit', {}, 1, null],
    ['an object one level past the limit', { a: {} }, 1, ['a']],
    ['an array one level past the limit', [[1]], 1, [0]],
    ['scalars do not count as a level', { a: 1, b: [1, 2] }, 2, null],
    ['the first too-deep branch', { ok: { fine: 1 }, deep: { er: { still: {} } } }, 3, ['deep', 'er', 'still']],
    ['exactly the default limit', nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH, null],
  ])('%s', (_name, value, max, expected) => {
    expect(tooDeepAt(value, max)).toEqual(expected);
  });

  it('walks input far deeper than the call stack allows', () => {
    const depth = 300_000;
    const value = JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown;
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(tooDeepAt(value)).toHaveLength(MAX_JSON_DEPTH);
  });

  it('ends on a cycle', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(tooDeepAt(cycle, 5)).toEqual(['self', 'self', 'self', 'self', 'self']);
  });
});
