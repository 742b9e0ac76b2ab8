import { describe, expect, it } from 'vitest';
import type { Step } from '../policy/handler.js';
import { delegated, delegationTo, settle } from '../testing/index.js';
import { withHandoffMetadata } from './handoff-metadata.js';

const parent = delegationTo('ROUTING_DISPATCHER', 'r.0-0.0-0', { task_type: 'decompose', objective: 'x' });
const round = (answers: readonly Record<string, unknown>[]) =>
  settle(parent, 'ROUTING_DISPATCHER', delegated({ kind: 'delegate', children: answers.map((_, i) => ({ task_type: 't', objective: `o${i}` })), strategy: 'all_success' }), 0, (_request, index) => ({
    summary: 'ok',
    confidence: 0.9,
    status: 'success',
    ...answers[index],
  }));
const answer: Step = { kind: 'outcome', outcome: { status: 'success', summary: 'all done', confidence: 0.9 } };

describe('withHandoffMetadata', () => {
  it("puts the children's metadata, aggregated, on the outcome", () => {
    const settled = round([
      { sources_count: 3, gaps: ['no prices'], data_freshness: '2026-02-28' },
      { sources_count: 4, gaps: ['no prices', 'no churn'], assumptions: ['2025 market size'], data_freshness: '2025-11-01' },
      { status: 'cancelled', sources_count: 100, gaps: ['lost the race'] },
    ]);
    expect(withHandoffMetadata(answer, settled)).toEqual({
      kind: 'outcome',
      outcome: { ...answer.outcome, sources_count: 7, gaps: ['no prices', 'no churn'], assumptions: ['2025 market size'], data_freshness: '2025-11-01' },
    });
  });

  it('leaves the step as it was when nothing carries metadata, or when it delegates again', () => {
    expect(withHandoffMetadata(answer, round([{}, {}]))).toBe(answer);
    const again: Step = { kind: 'delegate', children: [{ task_type: 't', objective: 'o' }], strategy: 'all_success' };
    expect(withHandoffMetadata(again, round([{ gaps: ['x'] }]))).toBe(again);
  });
});
