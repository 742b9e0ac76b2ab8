import { describe, expect, it } from 'vitest';
import { decodeBeadsValue, encodeBeadsValue } from './value-codec.js';

describe('encodeBeadsValue', () => {
  it.each([[{ a: [1, 'two', null, true] }], ['text'], [0], [null], [[]]])('round-trips %j', (value) => {
    expect(decodeBeadsValue('task/x', encodeBeadsValue('task/x', value))).toEqual(value);
  });

  it.each<[string, unknown, RegExp]>([
    ['undefined', undefined, /undefined has no JSON form/],
    ['a function', () => 1, /function has no JSON form/],
    ['a BigInt', 1n, /BigInt/],
    [
      'a cycle',
      (() => {
        const cycle: { self?: unknown } = {};
        cycle.self = cycle;
        return cycle;
      })(),
      /circular/i,
    ],
  ])('refuses %s', (_what, value, why) => {
    expect(() => encodeBeadsValue('task/x', value)).toThrow(expect.objectContaining({ code: 'beads_unserializable', message: expect.stringMatching(why) as unknown }));
    expect(() => encodeBeadsValue('task/x', value)).toThrow(/^cannot write beads:task\/x: the value is not JSON-serialisable/);
  });
});

describe('decodeBeadsValue', () => {
  it('names the key of a value that is not JSON', () => {
    expect(() => decodeBeadsValue('task/x', '{oops')).toThrow(expect.objectContaining({ code: 'beads_corrupt', message: 'beads:task/x holds a value that is not JSON: "{oops"' }));
  });

  it('checks with a schema when given one', () => {
    const positive = {
      parse: (value: unknown): number => {
        if (typeof value !== 'number' || value <= 0) throw new Error('expected a positive number');
        return value;
      },
    };
    expect(decodeBeadsValue('task/x', '3', positive)).toBe(3);
    expect(() => decodeBeadsValue('task/x', '-3', positive)).toThrow(
      expect.objectContaining({ code: 'beads_invalid_value', message: 'beads:task/x holds a value its schema refuses: expected a positive number' }),
    );
  });
});
