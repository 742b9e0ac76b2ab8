import { BeadsPermissionError } from '@tierflow/beads';
import { describe, expect, it } from 'vitest';
import { FakeBeads } from './index.js';

describe('FakeBeads', () => {
  it('writes like the real store: the tier’s own namespaces only, values through JSON, refs read too', async () => {
    const beads = new FakeBeads('ROUTING_DISPATCHER');
    await beads.set('routing/r1/graph', { at: new Date(0) });
    expect(await beads.get('beads:routing/r1/graph')).toEqual({ at: '1970-01-01T00:00:00.000Z' });
    await expect(beads.set('task/r1/plan', 1)).rejects.toBeInstanceOf(BeadsPermissionError);
    await expect(beads.delete('task/r1/plan')).rejects.toBeInstanceOf(BeadsPermissionError);
  });

  it('keeps the first of two setIfAbsent, deletes, and lists keys by glob, sorted', async () => {
    const beads = new FakeBeads('SPECIALIZED_FLEET');
    expect(await beads.setIfAbsent('execution/finished/a', 1)).toBe(true);
    expect(await beads.setIfAbsent('execution/finished/a', 2)).toBe(false);
    await beads.setMany([
      { key: 'execution/outputs/b', value: 1 },
      { key: 'execution/outputs/a.1', value: 2 },
    ]);
    expect(await beads.keys('execution/outputs/*')).toEqual(['execution/outputs/a.1', 'execution/outputs/b']);
    expect(await beads.keys('execution/outputs/a?1')).toEqual(['execution/outputs/a.1']);
    expect(await beads.getMany(['execution/finished/a', 'execution/none'])).toEqual([1, null]);
    expect(await beads.delete('execution/finished/a')).toBe(true);
    expect(await beads.exists('execution/finished/a')).toBe(false);
  });
});
