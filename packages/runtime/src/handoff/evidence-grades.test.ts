import { delegationPayloadSchema, outcomePayloadSchema, type OutcomePayloadInput } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { delegationTo, settle } from '../testing/index.js';
import { composeHandoffChain } from './chain.js';
import { evidenceGrades, graded } from './evidence-grades.js';
import type { OutcomeHandoff } from '../policy/handoff.js';

const request = delegationPayloadSchema.parse({ task_type: 'research', objective: 'size the market' });
const text = (content: string, grade?: unknown) => ({ artifact_type: 'text', inline_content: content, ...(grade === undefined ? {} : { metadata: { evidence_grade: grade } }) });

function outcome(fields: Partial<OutcomePayloadInput>, received: OutcomeHandoff['received'] = []): OutcomeHandoff {
  return {
    kind: 'outcome',
    id: 'root-1.0-0.0-0.0-0.out',
    rootId: 'root-1',
    from: 'SPECIALIZED_FLEET',
    to: 'ROUTING_DISPATCHER',
    signal: new AbortController().signal,
    payload: outcomePayloadSchema.parse({ status: 'success', summary: 'done', confidence: 0.9, execution_time_ms: 5, ...fields }),
    request,
    received,
  };
}

/** A Dispatcher's round of two Fleet children, graded as given. */
function roundOf(grades: [OutcomePayloadInput['evidence_grade'], OutcomePayloadInput['evidence_grade']], statuses: ['success' | 'failed', 'success' | 'failed'] = ['success', 'success']) {
  const parent = delegationTo('ROUTING_DISPATCHER', 'root-1.0-0.0-0', { task_type: 'decompose', objective: 'split' });
  const step = { kind: 'delegate' as const, strategy: 'all_success' as const, children: [request, request] };
  return settle(parent, 'ROUTING_DISPATCHER', step, 0, (_, index) => {
    const status = statuses[index]!;
    return {
      status,
      summary: status,
      confidence: status === 'success' ? 0.9 : 0,
      ...(grades[index] === undefined ? {} : { evidence_grade: grades[index] }),
      ...(status === 'failed' ? { error_type: 'sim_failed', recoverable: true } : {}),
    };
  }).children;
}

describe('evidence grades, as sent', () => {
  it('stamp the work done here with its grade, so the grade travels with each piece', () => {
    const payload = graded(outcome({ evidence_grade: 'IV', artifacts: [text('a'), text('b', 'PR')] }));
    expect(payload.evidence_grade).toBe('IV');
    expect(payload.artifacts.map((artifact) => artifact.metadata.evidence_grade)).toEqual(['IV', 'PR']);
  });

  it('report the weakest grade behind an aggregate: its artifacts and the children it relied on', () => {
    const artifacts = [text('{"strategy":"all_success"}'), text('from one', 'PR'), text('from two', 'HEUR')];
    expect(graded(outcome({ artifacts }, roundOf(['PR', 'HEUR']))).evidence_grade).toBe('HEUR');
    // A failed child's work is not relied on, and carries no artifacts up.
    expect(graded(outcome({ artifacts: artifacts.slice(0, 2) }, roundOf(['PR', 'DISC'], ['success', 'failed']))).evidence_grade).toBe('PR');
    // A child that brought no artifacts still counts.
    expect(graded(outcome({ artifacts: [] }, roundOf(['NOBEL', 'PP']))).evidence_grade).toBe('PP');
  });

  it('leave ungraded work as it is', () => {
    const given = outcome({ artifacts: [text('a')] });
    expect(graded(given)).toBe(given.payload);
  });
});

describe('evidence grades, as received', () => {
  const receive = (options: Parameters<typeof evidenceGrades>[0], handoff: OutcomeHandoff) => composeHandoffChain([evidenceGrades(options)], 'receive')!(handoff);

  it('refuse a grade on an artifact that is not one of the six', async () => {
    await expect(receive({}, outcome({ artifacts: [text('a', 'GOLD')] }))).rejects.toThrow(
      'evidence-grades refused the outcome root-1.0-0.0-0.0-0.out from SPECIALIZED_FLEET to ROUTING_DISPATCHER: artifact 0 has evidence_grade "GOLD", not one of NOBEL, PR, IV, PP, HEUR, DISC',
    );
  });

  it('hold work that succeeded to the deployment’s minimum, and to having a grade when it requires one', async () => {
    await expect(receive({ minimum: 'IV' }, outcome({ evidence_grade: 'HEUR' }))).rejects.toThrow('the work is graded HEUR, weaker than the minimum IV');
    await expect(receive({ minimum: 'IV' }, outcome({ artifacts: [text('a', 'PP')] }))).rejects.toThrow('graded PP');
    expect((await receive({ minimum: 'IV' }, outcome({ evidence_grade: 'PR' }))).payload.evidence_grade).toBe('PR');
    await expect(receive({ required: true }, outcome({}))).rejects.toThrow('the work carries no evidence grade, and this deployment requires one');
    // Failed work is not relied on: no grade is asked of it.
    const failed = outcome({ status: 'failed', summary: 'no', confidence: 0, error_type: 'sim_failed', evidence_grade: 'DISC' });
    expect((await receive({ minimum: 'NOBEL', required: true }, failed)).payload.status).toBe('failed');
  });

  it('refuse a minimum that is not a grade when the deployment starts', () => {
    expect(() => evidenceGrades({ minimum: 'GOLD' as 'PR' })).toThrow(
      expect.objectContaining({ code: 'invalid_config', message: 'evidenceGrades: minimum "GOLD" is not one of NOBEL, PR, IV, PP, HEUR, DISC' }) as Error,
    );
  });
});
