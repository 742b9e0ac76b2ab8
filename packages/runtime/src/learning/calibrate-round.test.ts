import { addToSums, historyIncrements, specialistStats, type DecayedSums, type SpecialistStats } from '@tierflow/core';
import { describe, expect, it } from 'vitest';
import type { Step } from '../policy/handler.js';
import { delegationTo, FakeBeads, FIXED_NOW, settle, type OutcomeReply } from '../testing/index.js';
import { calibratedRound, calibrateRound, leafIdentity } from './calibrate-round.js';
import { specialistHistoryKey } from './history-keys.js';
import { learningRecord } from '../testing/learning-record.js';

const dispatcher = delegationTo('ROUTING_DISPATCHER', 'root-1.0-0.0-0', { task_type: 'decompose', objective: 'x' });

/** A Dispatcher's round of Fleet leaves, each answering as `replies` says. */
function round(children: readonly { task_type?: string; task_data?: Record<string, unknown>; specialist_hint?: string }[], replies: readonly OutcomeReply[]) {
  const step: Step = {
    kind: 'delegate',
    strategy: 'all_success',
    children: children.map((child, i) => ({ task_type: child.task_type ?? 'general', objective: `leaf ${i}`, task_data: child.task_data ?? {}, specialist_hint: child.specialist_hint ?? null })),
  };
  return settle(dispatcher, 'ROUTING_DISPATCHER', step, 0, (_request, index) => replies[index]!);
}

/** A specialist that reported 0.9 `samples` times and succeeded `successes` of them. */
function overconfident(samples: number, successes: number): SpecialistStats {
  let value: DecayedSums | null = null;
  for (let i = 0; i < samples; i++) value = addToSums(value, historyIncrements(learningRecord({ confidence: 0.9, status: i < successes ? 'success' : 'failed' })), FIXED_NOW, 86_400_000);
  return specialistStats(value, FIXED_NOW);
}

const ok = (confidence: number, specialist = 'sim'): OutcomeReply => ({ status: 'success', summary: 'ok', confidence, resources_used: { specialist } });

describe('leafIdentity', () => {
  it('takes the specialist from the outcome, else the delegation, and the task type from task_data, else the delegation', () => {
    const settled = round(
      [{ task_data: { task_type: 'execute_code' } }, { task_type: 'write', specialist_hint: 'writer' }, {}],
      [
        ok(0.9, 'python'),
        { status: 'partial', summary: 'half', confidence: 0.5 },
        { status: 'failed', summary: 'no', confidence: 0.9, error_type: 'x', error_detail: 'y', recoverable: false, resources_used: { specialist: 'sim' } },
      ],
    );
    expect(settled.children.map(leafIdentity)).toEqual([{ taskType: 'execute_code', specialist: 'python' }, { taskType: 'write', specialist: 'writer' }, null]);
  });
});

describe('calibratedRound', () => {
  it('lowers an over-confident specialist’s confidence, keeping what it reported', () => {
    const settled = round([{ task_data: { task_type: 'execute_code' } }, { task_data: { task_type: 'execute_code' } }], [ok(0.9), ok(0.95, 'fresh')]);
    const stats = overconfident(20, 4);
    const result = calibratedRound(settled, (leaf) => (leaf.specialist === 'sim' ? stats : null));
    const [calibrated, untouched] = result.round.children;
    // (0.2 × 20 + 5 × 0.9) / (20 + 5)
    expect(calibrated!.outcome.payload.confidence).toBeCloseTo(0.34, 9);
    expect(calibrated!.outcome.payload.reported_confidence).toBe(0.9);
    expect(untouched).toBe(settled.children[1]);
    expect(result.calibrated).toEqual([{ id: calibrated!.id, reported: 0.9, confidence: calibrated!.outcome.payload.confidence, samples: expect.closeTo(20, 9) as number }]);
    // Read again, a calibrated child is calibrated from what it reported, not twice.
    const again = calibratedRound(result.round, () => stats);
    expect(again.round.children[0]!.outcome.payload.confidence).toBeCloseTo(0.34, 9);
  });

  it('leaves the round as it is without enough history', () => {
    const settled = round([{ task_data: { task_type: 'execute_code' } }], [ok(0.9)]);
    const result = calibratedRound(settled, () => overconfident(5, 0));
    expect(result.round).toBe(settled);
    expect(result.calibrated).toEqual([]);
  });
});

describe('calibrateRound', () => {
  it('reads the leaves’ history in one read, and reads nothing for a round without a leaf to calibrate', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    for (let i = 0; i < 20; i++) {
      await beads.addDecayed(specialistHistoryKey('execute_code', 'sim'), historyIncrements(learningRecord({ status: i < 4 ? 'success' : 'failed' })), { halfLifeMs: 86_400_000, now: FIXED_NOW });
    }
    const reads: number[] = [];
    const reader = { getMany: <T>(keys: readonly string[]) => (reads.push(keys.length), beads.getMany<T>(keys)) };
    const settled = round([{ task_data: { task_type: 'execute_code' } }, { task_data: { task_type: 'execute_code' } }, { task_data: { task_type: 'write' } }], [ok(0.9), ok(0.9), ok(0.9)]);
    const result = await calibrateRound(reader, settled, FIXED_NOW);
    expect(reads).toEqual([2]);
    expect(result.round.children.map((child) => child.outcome.payload.confidence)).toEqual([expect.closeTo(0.34, 9), expect.closeTo(0.34, 9), 0.9]);
    const failed = round([{}], [{ status: 'failed', summary: 'no', confidence: 0.9, error_type: 'x', error_detail: 'y', recoverable: false, resources_used: { specialist: 'sim' } }]);
    expect((await calibrateRound(reader, failed, FIXED_NOW)).round).toBe(failed);
    expect(reads).toEqual([2]);
  });
});
