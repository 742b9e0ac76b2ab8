import { describe, expect, it } from 'vitest';
import { uniquePrefix } from './unique-prefix.js';

describe('uniquePrefix', () => {
  it('is hash-tagged and carries the label', () => {
    expect(uniquePrefix('store')).toMatch(/^\{t-store-[0-9a-f]{8}\}$/);
  });

  it('is different every time', () => {
    const prefixes = new Set(Array.from({ length: 100 }, () => uniquePrefix('x')));
    expect(prefixes.size).toBe(100);
  });

  it('keeps braces and spaces out of the hash tag', () => {
    expect(uniquePrefix('a {b} c')).toMatch(/^\{t-a--b--c-[0-9a-f]{8}\}$/);
  });
});
