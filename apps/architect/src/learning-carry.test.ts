import { learningRecordsOf, type LearningRecord } from '@tierflow/core';
import { outcomePayloadSchema } from '@tierflow/protocol';
import { learningRecord } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { carryRound, withCarried } from './learning-carry.js';

const record = (specialist: string, status: LearningRecord['status'] = 'success'): LearningRecord =>
  learningRecord({ task_type: 'write', specialist, status, confidence: 0.8, latency_ms: 10, tokens_in: 0, tokens_out: 0, cost_usd: 0 });
const summary = (learning: unknown, extra: Record<string, unknown> = {}) => ({ artifact_type: 'aggregation_summary', content_ref: null, inline_content: '{}', metadata: { learning, ...extra } });
const none = { learning: [], learning_dropped: 0, surprises: [] };

describe('carryRound', () => {
  it('keeps every round’s records and surprises, in order, counting the unreadable', () => {
    const first = carryRound(none, { artifacts: [summary([record('a', 'failed'), { bad: true }])], surprise_flag: true, surprise_reason: 'slow' });
    expect(first).toEqual({ learning: [record('a', 'failed')], learning_dropped: 1, surprises: ['slow'] });
    const second = carryRound(first, { artifacts: [], surprise_flag: false, surprise_reason: null });
    expect(second).toEqual(first);
  });
});

describe('withCarried', () => {
  it('puts earlier rounds’ records before the summary’s own, and their surprises before its own', () => {
    const fields = {
      status: 'success' as const,
      summary: 'ok',
      confidence: 0.9,
      artifacts: [summary([record('b')], { learning_dropped: 2, revise: false }), { artifact_type: 'code', inline_content: 'x' }],
      surprise_flag: false,
    };
    const carried = withCarried(fields, { learning: [record('a', 'failed')], learning_dropped: 1, surprises: ['subtask 1 (a): failed where a succeeds 100 % of the time'] });
    const parsed = outcomePayloadSchema.parse({ ...carried, execution_time_ms: 1 });
    expect(learningRecordsOf(parsed)).toEqual({ records: [record('a', 'failed'), record('b')], dropped: 3 });
    expect(parsed.artifacts[0]?.metadata).toMatchObject({ revise: false });
    expect(parsed.artifacts[1]?.inline_content).toBe('x');
    expect(parsed).toMatchObject({ surprise_flag: true, surprise_reason: 'subtask 1 (a): failed where a succeeds 100 % of the time' });
  });

  it('changes nothing when nothing was carried', () => {
    const fields = { status: 'success' as const, summary: 'ok', confidence: 0.9, artifacts: [summary([record('b')])], surprise_flag: true, surprise_reason: 'odd' };
    expect(withCarried(fields, none)).toBe(fields);
  });
});
