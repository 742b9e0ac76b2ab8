import { describe, expect, it } from 'vitest';
import type { Planner } from '@tierflow/runtime/policy';
import { resolveArchitectOptions, type ArchitectOptionsInput } from './options.js';

const planner: Planner = () => Promise.resolve(null);

describe('resolveArchitectOptions', () => {
  it.each<[string, ArchitectOptionsInput | undefined, object]>([
    ['defaults', undefined, { maxRevisions: 1, dispatcherTimeoutMs: 720_000, planner: null }],
    ['never revise', { maxRevisions: 0 }, { maxRevisions: 0, dispatcherTimeoutMs: 720_000, planner: null }],
    ['both set', { maxRevisions: 3, dispatcherTimeoutMs: 1_000 }, { maxRevisions: 3, dispatcherTimeoutMs: 1_000, planner: null }],
    ['a planner', { planner }, { maxRevisions: 1, dispatcherTimeoutMs: 720_000, planner }],
  ])('%s', (_name, input, expected) => {
    expect(resolveArchitectOptions(input)).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['a negative revision count', { maxRevisions: -1 }, 'maxRevisions'],
    ['a fractional timeout', { dispatcherTimeoutMs: 1.5 }, 'dispatcherTimeoutMs'],
    ['an unknown option', { retries: 2 }, 'retries'],
    ['a planner that is not a function', { planner: 'llm' }, 'planner'],
  ])('refuses %s', (_name, input, field) => {
    expect(() => resolveArchitectOptions(input as ArchitectOptionsInput)).toThrow(expect.objectContaining({ code: 'invalid_config', message: expect.stringContaining(field) as unknown }));
  });
});
