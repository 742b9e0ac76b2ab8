import { describe, expect, it } from 'vitest';
import { blockerSchema, unblockedOf, unblockNoteFor } from './blocker.js';
import { outcomePayloadSchema } from './payloads/outcome.js';

describe('unblock notes in task_data', () => {
  const lifted = { blocker_id: 'r.0-0.out', blocker: 'Waiting for the API key', note: 'key issued' };

  it('are read leniently: none when absent or of another shape', () => {
    expect(unblockedOf({})).toEqual([]);
    expect(unblockedOf({ unblocked: 'yes' })).toEqual([]);
    expect(unblockedOf({ unblocked: [{ note: 'x' }] })).toEqual([]);
    expect(unblockedOf({ unblocked: [lifted] })).toEqual([lifted]);
    expect(unblockedOf({ unblocked: [{ blocker_id: 'r.0-0.out', blocker: 'b' }] })).toEqual([{ blocker_id: 'r.0-0.out', blocker: 'b', note: '' }]);
  });

  it('name a blocker by its text, the latest note first', () => {
    const later = { ...lifted, blocker_id: 'r.1-0.out', note: 'key rotated' };
    expect(unblockNoteFor({ unblocked: [lifted, later] }, ' Waiting for the API key ')).toBe('key rotated');
    expect(unblockNoteFor({ unblocked: [lifted] }, 'Waiting for a review')).toBeNull();
  });
});

describe('blockers on an outcome', () => {
  const blocker = { id: 'r.0-0.out', blocker: 'Waiting for the API key', tier: 'SPECIALIZED_FLEET' };
  const outcome = { summary: 's', confidence: 0.5, execution_time_ms: 1 };

  it('name what blocked work waits on', () => {
    expect(blockerSchema.safeParse(blocker).success).toBe(true);
    expect(blockerSchema.safeParse({ ...blocker, blocker: '  ' }).success).toBe(false);
  });

  it('come with status blocked only', () => {
    expect(outcomePayloadSchema.safeParse({ ...outcome, status: 'blocked', blockers: [blocker] }).success).toBe(true);
    expect(outcomePayloadSchema.safeParse({ ...outcome, status: 'failed', blockers: [blocker] }).success).toBe(false);
    expect(outcomePayloadSchema.safeParse({ ...outcome, status: 'failed', blockers: [] }).success).toBe(true);
  });
});
