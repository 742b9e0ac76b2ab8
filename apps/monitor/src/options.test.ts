import { describe, expect, it } from 'vitest';
import { resolveMonitorOptions, type MonitorOptionsInput } from './options.js';

describe('resolveMonitorOptions', () => {
  it.each<[string, MonitorOptionsInput | undefined, object]>([
    ['defaults', undefined, { maxResets: 1, architectTimeoutMs: 1_500_000, surprise: { minSamples: 5, sigmas: 3 }, historyHalfLifeMs: 86_400_000 }],
    ['a history half-life of its own', { historyHalfLifeMs: 3_600_000 }, { historyHalfLifeMs: 3_600_000 }],
    ['part of surprise', { surprise: { sigmas: 2 } }, { surprise: { minSamples: 5, sigmas: 2 } }],
    ['never reset', { maxResets: 0 }, { maxResets: 0 }],
  ])('%s', (_name, input, expected) => {
    expect(resolveMonitorOptions(input)).toMatchObject(expected);
  });

  it('refuses bad options, naming every problem', () => {
    const bad = { maxResets: -1, surprise: { minSamples: 0, sigmas: 0 }, historyHalfLifeMs: 10 };
    expect(() => resolveMonitorOptions(bad)).toThrow(
      expect.objectContaining({ code: 'invalid_config', message: expect.stringMatching(/maxResets.*minSamples.*sigmas.*historyHalfLifeMs/) as unknown }),
    );
  });
});
