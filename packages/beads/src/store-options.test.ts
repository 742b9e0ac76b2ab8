import { describe, expect, it } from 'vitest';
import { DEFAULT_BEADS_TTL_MS, resolveBeadsStoreOptions, resolveTtl, type BeadsStoreOptions } from './store-options.js';

describe('resolveBeadsStoreOptions', () => {
  it.each<[BeadsStoreOptions, object]>([
    [{ tier: 'SPECIALIZED_FLEET' }, { tier: 'SPECIALIZED_FLEET', prefix: '{tierflow}', defaultTtlMs: 86_400_000 }],
    [
      { tier: 'PROGRESS_MONITOR', prefix: '{cell-2}', defaultTtlMs: null },
      { tier: 'PROGRESS_MONITOR', prefix: '{cell-2}', defaultTtlMs: null },
    ],
    [
      { tier: 'ABSTRACT_ARCHITECT', defaultTtlMs: 1 },
      { tier: 'ABSTRACT_ARCHITECT', prefix: '{tierflow}', defaultTtlMs: 1 },
    ],
  ])('%j', (input, expected) => {
    expect(resolveBeadsStoreOptions(input)).toEqual(expected);
  });

  it('has a 24 h default TTL', () => {
    expect(DEFAULT_BEADS_TTL_MS).toBe(24 * 3_600_000);
  });

  it('names every problem', () => {
    const input = { tier: 'FLEET', prefix: 'a b', defaultTtlMs: 0 } as unknown as BeadsStoreOptions;
    expect(() => resolveBeadsStoreOptions(input)).toThrow(
      'invalid Beads store options: tier (FLEET) must be one of the four tier names; prefix ("a b") must be non-empty, without whitespace; defaultTtlMs (0) must be null or a whole number of milliseconds, 1 or more',
    );
  });

  it.each([{ prefix: '' }, { defaultTtlMs: 1.5 }, { defaultTtlMs: -1 }, { defaultTtlMs: Number.NaN }, { defaultTtlMs: Infinity }])('refuses %j', (extra) => {
    expect(() => resolveBeadsStoreOptions({ tier: 'SPECIALIZED_FLEET', ...extra })).toThrow(expect.objectContaining({ code: 'invalid_config', retryable: false }));
  });
});

describe('resolveTtl', () => {
  it.each<[number | null | undefined, number | null, number | null]>([
    [undefined, 1000, 1000],
    [undefined, null, null],
    [null, 1000, null],
    [5, 1000, 5],
    [5, null, 5],
  ])('%j with default %j → %j', (ttl, fallback, expected) => {
    expect(resolveTtl(ttl, fallback)).toBe(expected);
  });

  it.each([0, -5, 1.5, Number.NaN, Infinity])('refuses %j', (ttl) => {
    expect(() => resolveTtl(ttl, null)).toThrow(expect.objectContaining({ code: 'invalid_beads_ttl' }));
  });
});
