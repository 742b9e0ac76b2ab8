import { describe, expect, it } from 'vitest';
import { DEFAULT_CASCADE_THRESHOLDS } from './confidence-cascade.js';
import { cascadeThresholdsFor, isolatesTone } from './handoff-flags.js';

const custom = { proceed: 0.9, flag: 0.6, review: 0.4 };

describe('per-handoff flags', () => {
  it.each([
    ['deployment on, no flag', custom, undefined, custom],
    ['deployment on, flag false', custom, false, null],
    ['deployment on, flag true', custom, true, custom],
    ['deployment off, no flag', null, undefined, null],
    ['deployment off, flag false', null, false, null],
    ['deployment off, flag true: the default bounds', null, true, DEFAULT_CASCADE_THRESHOLDS],
  ] as const)('cascade check: %s', (_name, deployment, flag, expected) => {
    expect(cascadeThresholdsFor(deployment, flag)).toEqual(expected);
  });

  it.each([
    [true, undefined, true],
    [true, false, false],
    [true, true, true],
    [false, undefined, false],
    [false, false, false],
    [false, true, true],
  ] as const)('tone isolation: deployment %s, flag %s → %s', (deployment, flag, expected) => {
    expect(isolatesTone(deployment, flag)).toBe(expected);
  });
});
