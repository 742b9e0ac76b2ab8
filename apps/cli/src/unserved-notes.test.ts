import type { TierName } from '@tierflow/protocol';
import { runNode } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { UNSERVED_CHECK_MS, UnservedNotes } from './unserved-notes.js';

const root = runNode('r-1', { tier: 'PROGRESS_MONITOR', status: 'queued', source: 'queue', queue_state: 'waiting' });

describe('UnservedNotes', () => {
  it('asks once the run has waited a moment, says each note once, and drops it once a worker serves the tier', async () => {
    let clock = 0;
    let unserved: TierName[] = ['PROGRESS_MONITOR'];
    let asked = 0;
    const notes = new UnservedNotes(
      {
        unservedTiers: () => {
          asked += 1;
          return Promise.resolve(unserved);
        },
      },
      () => clock,
    );
    expect(await notes.update(root)).toEqual({ current: [], fresh: [] });
    clock = UNSERVED_CHECK_MS;
    const first = await notes.update(root);
    expect(first.fresh).toEqual([expect.stringMatching(/^no monitor worker is running/)]);
    clock += 500;
    expect(await notes.update(root)).toEqual({ current: first.current, fresh: [] });
    expect(asked).toBe(1);
    unserved = [];
    clock += UNSERVED_CHECK_MS;
    expect(await notes.update(root)).toEqual({ current: [], fresh: [] });
  });
});
