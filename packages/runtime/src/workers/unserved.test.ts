import type { TierName } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import type { RunNode } from '../audit/run-tree-merge.js';
import { runNode } from '../testing/index.js';
import { unservedNotice, unservedTiers, waitingTiers } from './unserved.js';

const queued = (id: string, tier: TierName, queue_state = 'waiting'): RunNode => runNode(id, { tier, status: 'queued', source: 'queue', queue_state, confidence: null });

describe('waitingTiers and unservedTiers', () => {
  it('a root no Monitor has taken waits on the monitor tier', () => {
    expect(waitingTiers(queued('r-1', 'PROGRESS_MONITOR'))).toEqual(['PROGRESS_MONITOR']);
    expect(waitingTiers(queued('r-1', 'PROGRESS_MONITOR', 'prioritized'))).toEqual(['PROGRESS_MONITOR']);
  });

  it('a run whose work is taken, or done, waits on no tier', () => {
    const running = runNode('r-1', {
      tier: 'PROGRESS_MONITOR',
      status: 'waiting_for_children',
      source: 'queue',
      queue_state: 'waiting-children',
      children: [runNode('a-1', { tier: 'ABSTRACT_ARCHITECT', status: 'running', source: 'queue', queue_state: 'active' })],
    });
    expect(waitingTiers(running)).toEqual([]);
    expect(waitingTiers(runNode('r-1', { tier: 'PROGRESS_MONITOR' }))).toEqual([]);
  });

  it('names each tier a job waits on once, the root first', () => {
    const tree = runNode('r-1', {
      tier: 'PROGRESS_MONITOR',
      status: 'waiting_for_children',
      source: 'queue',
      queue_state: 'waiting-children',
      children: [queued('d-1', 'ROUTING_DISPATCHER'), queued('d-2', 'ROUTING_DISPATCHER')],
    });
    expect(waitingTiers(tree)).toEqual(['ROUTING_DISPATCHER']);
  });

  it('keeps the tiers no live worker serves', () => {
    expect(unservedTiers(['PROGRESS_MONITOR', 'SPECIALIZED_FLEET'], [{ tier: 'SPECIALIZED_FLEET' }, { tier: 'ABSTRACT_ARCHITECT' }])).toEqual(['PROGRESS_MONITOR']);
    expect(unservedTiers(['PROGRESS_MONITOR'], [{ tier: 'PROGRESS_MONITOR' }])).toEqual([]);
  });

  it('says it in words a newcomer can act on', () => {
    expect(unservedNotice('PROGRESS_MONITOR')).toBe('no monitor worker is running: the run waits in the monitor queue until one starts (tierflow up, or tierflow worker monitor)');
  });
});
