import { describe, expect, it } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import { signRecord } from '../security/signing.js';
import { memoryKeySet } from '../testing/keys.js';
import { runSummary, statesFor } from './run-list.js';

const T0 = Date.parse('2026-11-25T12:00:00.000Z');
type JobLike = Parameters<typeof runSummary>[0];
const job = (overrides: Partial<JobLike> = {}): JobLike => ({
  id: 'r1',
  data: { kind: 'root', root_id: 'r1', objective: { objective: 'write a binary search' } },
  timestamp: T0,
  processedOn: T0 + 100,
  returnvalue: null,
  ...overrides,
});

describe('runSummary', () => {
  it('reads a finished root: its outcome’s status and how long it took from its submission', () => {
    const outcome = buildOutcome('ABSTRACT_ARCHITECT', 'r1', { status: 'partial', summary: 's', confidence: 0.5, error_type: 'x', error_detail: 'y', recoverable: true }, 10, T0);
    expect(runSummary(job({ finishedOn: T0 + 2_600, returnvalue: outcome }), 'completed', T0 + 9_000)).toEqual({
      root_id: 'r1',
      status: 'partial',
      queue_state: 'completed',
      objective: 'write a binary search',
      submitted_at: '2026-11-25T12:00:00.000Z',
      finished_at: '2026-11-25T12:00:02.600Z',
      duration_ms: 2_600,
    });
  });

  it('takes a finished run’s status from its own outcome only: another run’s, or one the Monitor did not sign where it signs, reads failed', () => {
    const draft = { status: 'success', summary: 's', confidence: 0.9 } as const;
    expect(runSummary(job({ returnvalue: buildOutcome('ABSTRACT_ARCHITECT', 'r2', draft, 10, T0) }), 'completed', T0).status).toBe('failed');
    const keys = memoryKeySet();
    const own = buildOutcome('ABSTRACT_ARCHITECT', 'r1', draft, 10, T0);
    expect(runSummary(job({ returnvalue: signRecord(own, keys.signer('monitor')) }), 'completed', T0, keys.signing).status).toBe('success');
    expect(runSummary(job({ returnvalue: signRecord(own, keys.signer('fleet')) }), 'completed', T0, keys.signing).status).toBe('failed');
  });

  it.each([
    ['active', 'running', 1_000],
    ['waiting-children', 'waiting_for_children', 1_000],
    ['waiting', 'queued', 1_000],
    ['failed', 'failed', 1_000],
  ] as const)('a %s root job is %s', (state, status, duration) => {
    expect(runSummary(job(), state, T0 + 1_000)).toMatchObject({ status, duration_ms: duration, finished_at: null });
  });

  it.each([
    ['prioritized', 'queued'],
    ['waiting', 'queued'],
    ['waiting-children', 'waiting_for_children'],
    ['active', 'running'],
    ['delayed', 'retrying'],
  ] as const)('a %s root is listed %s, the queue state only in queue_state', (state, status) => {
    expect(runSummary(job(), state, T0)).toMatchObject({ status, queue_state: state });
  });

  it('shows a root whose data does not parse, and cuts a long objective', () => {
    expect(runSummary(job({ data: 'junk' }), 'waiting', T0).objective).toBe('(unreadable)');
    expect(runSummary(job({ data: { objective: { objective: 'x'.repeat(100) } } }), 'waiting', T0).objective).toHaveLength(80);
  });
});

describe('statesFor', () => {
  it('looks where runs of a status can be', () => {
    expect(statesFor('running')).toEqual(['active']);
    expect(statesFor('waiting_for_children')).toEqual(['waiting-children']);
    expect(statesFor('queued')).toEqual(['waiting', 'prioritized']);
    expect(statesFor('input_required')).toEqual(['delayed']);
    expect(statesFor('success')).toEqual(['completed']);
    expect(statesFor('failed')).toEqual(['completed', 'failed']);
    expect(statesFor(undefined)).toHaveLength(7);
  });
});
