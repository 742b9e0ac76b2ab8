import { describe, expect, it } from 'vitest';
import { boundedValue, jsonEqual, MAX_REPORTED_CHARS, truncate } from './report-values.js';

describe('jsonEqual', () => {
  it('compares JSON values structurally, object keys in any order', () => {
    expect(jsonEqual({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 1 })).toBe(false);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});

describe('truncate and boundedValue', () => {
  it('keep short text and values as they are', () => {
    expect(truncate('abc')).toBe('abc');
    expect(boundedValue({ a: [1] })).toEqual({ a: [1] });
  });

  it('cut long ones, saying how long they were', () => {
    const long = 'x'.repeat(MAX_REPORTED_CHARS + 10);
    expect(truncate(long)).toBe(`${'x'.repeat(MAX_REPORTED_CHARS)}… (${MAX_REPORTED_CHARS + 10} characters in all)`);
    expect(boundedValue([long])).toMatch(/^\["x+… \(\d+ characters in all\)$/);
  });
});
