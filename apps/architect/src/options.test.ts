import { describe, expect, it } from 'vitest';
import { resolveArchitectOptions, type ArchitectOptionsInput } from './options.js';

describe('resolveArchitectOptions', () => {
  it.each<[string, ArchitectOptionsInput | undefined, object]>([
    ['defaults', undefined, { maxRevisions: 1, dispatcherTimeoutMs: 60_000 }],
    ['never revise', { maxRevisions: 0 }, { maxRevisions: 0, dispatcherTimeoutMs: 60_000 }],
    ['both set', { maxRevisions: 3, dispatcherTimeoutMs: 1_000 }, { maxRevisions: 3, dispatcherTimeoutMs: 1_000 }],
  ])('%s', (_name, input, expected) => {
    expect(resolveArchitectOptions(input)).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['a negative revision count', { maxRevisions: -1 }, 'maxRevisions'],
    ['a fractional timeout', { dispatcherTimeoutMs: 1.5 }, 'dispatcherTimeoutMs'],
    ['an unknown option', { retries: 2 }, 'retries'],
  ])('refuses %s', (_name, input, field) => {
    expect(() => resolveArchitectOptions(input as ArchitectOptionsInput)).toThrow(expect.objectContaining({ code: 'invalid_config', message: expect.stringContaining(field) as unknown }));
  });
});
