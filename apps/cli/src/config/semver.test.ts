import { describe, expect, it } from 'vitest';
import { isSemver } from './semver.js';

describe('semantic versions', () => {
  it.each(['1.0.0', '0.1.0', '10.20.30', '1.4.0-rc.1', '1.0.0-alpha.beta+exp.sha.5114f85', '2.0.0+build.1'])('takes %s', (version) => {
    expect(isSemver(version)).toBe(true);
  });

  it.each(['1', '1.0', 'v1.0.0', '01.0.0', '1.0.0-', '1.0.0-01', 'latest', '', '1.0.0 '])('refuses %j', (version) => {
    expect(isSemver(version)).toBe(false);
  });
});
