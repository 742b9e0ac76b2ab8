import type { AggregationStrategy } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { decideNext, type DispatchDecision } from './decide-next.js';
import type { DispatchMemo, SubtaskResult, SubtaskState } from './dispatch-memo.js';

function result(status: SubtaskResult['status'], errorType: string | null = null): SubtaskResult {
  return {
    message_id: 'm',
    specialist: 's',
    status,
    confidence: 0.5,
    reported_confidence: null,
    error_type: errorType,
    error_detail: null,
    recoverable: errorType ? true : null,
    artifacts: [],
    summary: status,
    evidence_grade: null,
    surprise: null,
  };
}
const unavailable = result('failed', 'specialist_unavailable');

function memo(strategy: AggregationStrategy, ...subtasks: [SubtaskResult, string[]][]): DispatchMemo {
  const states: SubtaskState[] = subtasks.map(([res, alternates], i) => ({
    index: i + 1,
    specialist: `s${i + 1}`,
    alternates,
    result: res,
    throttles: 0,
    deadline: null,
    concern: null,
    routing: null,
  }));
  return { strategy, subtasks: states, completion: states.map((state) => state.index), plan: null, learning: [], surprises: [] };
}

describe('decideNext', () => {
  it.each<[string, DispatchMemo, DispatchDecision['kind'], number[]]>([
    ['all succeeded', memo('all_success', [result('success'), []], [result('success'), []]), 'report', []],
    ['unavailable with an alternate', memo('all_success', [result('success'), []], [unavailable, ['sim']]), 'reroute', [2]],
    ['unavailable without an alternate', memo('all_success', [result('success'), []], [unavailable, []]), 'report', []],
    ['low confidence, its policy retry: once more, to the same specialist', memo('all_success', [result('success'), []], [result('failed', 'low_confidence_retry'), []]), 'reroute', [2]],
    ['low confidence, escalated', memo('all_success', [result('success'), []], [result('failed', 'low_confidence'), ['sim']]), 'report', []],
    ['only the unavailable ones', memo('majority', [unavailable, ['x']], [result('failed', 'crash'), ['y']], [unavailable, ['z', 'w']]), 'reroute', [1, 3]],
    ['another failure is not re-routed', memo('all_success', [result('failed', 'crash'), ['sim']]), 'report', []],
    ['rejected by its specialist, with an alternate', memo('all_success', [result('failed', 'handoff_rejected'), ['sim']]), 'reroute', [1]],
    ['an unknown agent, with an alternate', memo('all_success', [result('failed', 'unknown_agent'), ['sim']]), 'reroute', [1]],
    ['rejected, with no alternate left', memo('all_success', [result('failed', 'handoff_rejected'), []]), 'report', []],
    ['a timeout is not re-routed', memo('all_success', [result('timeout', 'specialist_unavailable'), ['sim']]), 'report', []],
    ['first_success already won', memo('first_success', [unavailable, ['sim']], [result('success'), []]), 'report', []],
    ['first_success without a winner re-routes', memo('first_success', [unavailable, ['sim']], [result('failed', 'crash'), []]), 'reroute', [1]],
    ['any_success re-routes beside a success', memo('any_success', [unavailable, ['sim']], [result('success'), []]), 'reroute', [1]],
  ])('%s', (_name, input, kind, subtasks) => {
    const decision = decideNext(input);
    expect(decision.kind).toBe(kind);
    if (decision.kind === 'reroute') expect(decision.subtasks).toEqual(subtasks);
  });

  describe('a throttled subtask', () => {
    const throttled = result('throttled', 'throttled');
    const policy = { retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, jitter: 0 }, now: 1_000, random: () => 0.5 };

    it('goes to its next alternate at once when it has one', () => {
      const decision = decideNext(memo('all_success', [throttled, ['sim-b']]), policy);
      expect(decision).toMatchObject({ kind: 'reroute', subtasks: [1], delayMs: 0 });
      if (decision.kind === 'reroute') expect(decision.memo.subtasks[0]).toMatchObject({ specialist: 'sim-b', throttles: 0 });
    });

    it('else goes to the same specialist after an exponential back-off, keeping its deadline', () => {
      const input = memo('all_success', [throttled, []]);
      const first = decideNext({ ...input, subtasks: [{ ...input.subtasks[0]!, deadline: 31_000 }] }, policy);
      expect(first).toMatchObject({ kind: 'reroute', subtasks: [1], delayMs: 100, timeouts: { 1: 30_000 } });
      if (first.kind !== 'reroute') return;
      expect(first.memo.subtasks[0]).toMatchObject({ specialist: 's1', throttles: 1 });
      const second = decideNext({ ...first.memo, subtasks: [{ ...first.memo.subtasks[0]!, result: throttled }] }, policy);
      expect(second).toMatchObject({ kind: 'reroute', delayMs: 200 });
    });

    it('stops once its tries are spent', () => {
      const input = memo('all_success', [throttled, []]);
      expect(decideNext({ ...input, subtasks: [{ ...input.subtasks[0]!, throttles: 2 }] }, policy).kind).toBe('report');
    });

    it('stops when the back-off would not leave time before its deadline', () => {
      const input = memo('all_success', [throttled, []]);
      expect(decideNext({ ...input, subtasks: [{ ...input.subtasks[0]!, deadline: 1_120 }] }, policy).kind).toBe('report');
    });

    it('is reported as it is without a throttle policy', () => {
      expect(decideNext(memo('all_success', [throttled, []])).kind).toBe('report');
    });
  });

  it('moves each re-routed subtask to its next alternate and leaves the others', () => {
    const decision = decideNext(memo('all_success', [result('success'), ['x']], [unavailable, ['sim', 'gpu']]));
    expect(decision.kind).toBe('reroute');
    if (decision.kind !== 'reroute') return;
    expect(decision.memo.subtasks.map(({ specialist, alternates }) => ({ specialist, alternates }))).toEqual([
      { specialist: 's1', alternates: ['x'] },
      { specialist: 'sim', alternates: ['gpu'] },
    ]);
  });
});

describe('a retry for low confidence', () => {
  it('attaches the concern, and happens once', () => {
    const low = { ...result('failed', 'low_confidence_retry'), error_detail: 'confidence 0.20 is under 0.5' };
    const first = decideNext(memo('all_success', [low, []]));
    expect(first).toMatchObject({ kind: 'reroute', subtasks: [1], memo: { subtasks: [{ specialist: 's1', concern: 'confidence 0.20 is under 0.5' }] } });
    const again = first.kind === 'reroute' ? first.memo : null;
    expect(decideNext({ ...again!, subtasks: again!.subtasks.map((subtask) => ({ ...subtask, result: low })) })).toEqual({ kind: 'report' });
  });
});
