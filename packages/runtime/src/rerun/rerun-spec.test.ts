import { describe, expect, it } from 'vitest';
import { nodeRerun } from './node-rerun.js';
import { nodePath, rerunRole, rerunSpecSchema } from './rerun-spec.js';

const spec = (from: string | null, replay: 'off' | 'loose' | 'strict' = 'off') => rerunSpecSchema.parse({ of: 'old', from, replay });

describe('a node’s part in a rerun', () => {
  it('finds a node’s place in its run', () => {
    expect(nodePath('new', 'new')).toBe('');
    expect(nodePath('new.0-0.1-2', 'new')).toBe('.0-0.1-2');
    expect(nodePath('newer.0-0', 'new')).toBeNull();
  });

  it.each([
    // A whole rerun runs every node.
    [null, '', 'run'],
    [null, '.0-0.0-1', 'run'],
    // A fork from .0-0.0-1: the node and what is under it run, its ancestors run again, the rest is reused.
    ['old.0-0.0-1', '.0-0.0-1', 'run'],
    ['old.0-0.0-1', '.0-0.0-1.0-0', 'run'],
    ['old.0-0.0-1', '', 'ancestor'],
    ['old.0-0.0-1', '.0-0', 'ancestor'],
    ['old.0-0.0-1', '.0-0.0-0', 'reuse'],
    ['old.0-0.0-1', '.0-0.0-10', 'reuse'],
    ['old.0-0.0-1', '.0-0.1-1', 'reuse'],
  ] as const)('from %s, the node at %j is to %s', (from, path, role) => {
    expect(rerunRole(spec(from), path)).toBe(role);
  });

  it('replays calls as asked under the fork, and loosely outside it; knows the fork’s node', () => {
    expect(nodeRerun(spec('old.0-0.0-1', 'strict'), 'new.0-0.0-1', 'new')).toEqual({
      spec: spec('old.0-0.0-1', 'strict'),
      path: '.0-0.0-1',
      role: 'run',
      replay: 'strict',
      original: 'old.0-0.0-1',
      forkNode: true,
    });
    expect(nodeRerun(spec('old.0-0.0-1', 'off'), 'new.0-0', 'new')).toMatchObject({ role: 'ancestor', replay: 'loose', forkNode: false });
    expect(nodeRerun(spec(null, 'strict'), 'new', 'new')).toMatchObject({ role: 'run', replay: 'strict', original: 'old' });
    expect(nodeRerun(spec(null), 'other.0-0', 'new')).toBeNull();
  });

  it('refuses a spec out of shape', () => {
    expect(rerunSpecSchema.safeParse({ of: 'old', replay: 'sometimes' }).success).toBe(false);
    expect(rerunSpecSchema.safeParse({ of: 'old', extra: 1 }).success).toBe(false);
  });
});
