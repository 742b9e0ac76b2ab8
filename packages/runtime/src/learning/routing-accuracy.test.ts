import { addToSums, type DecayedSums } from '@tierflow/core';
import { describe, expect, it } from 'vitest';
import { learningRecord } from '../testing/learning-record.js';
import { routingAccuracy, routingIncrements } from './routing-accuracy.js';

const DAY = 86_400_000;
const T0 = 1_700_000_000_000;

function folded(records: Parameters<typeof routingIncrements>[0][]): DecayedSums | null {
  let value: DecayedSums | null = null;
  for (const record of records) {
    const increments = routingIncrements(record);
    if (increments) value = addToSums(value, increments, T0, DAY);
  }
  return value;
}

describe('routing accuracy', () => {
  it('counts nothing of an attempt no routing decision chose', () => {
    expect(routingIncrements(learningRecord())).toBeNull();
    expect(routingAccuracy(null, T0)).toBeNull();
  });

  it('counts routed attempts and how often the chosen specialist succeeded', () => {
    const fixed = { mode: 'fixed' as const, reason: 'fixed' as const, fixed: 'sim', learned: null, expected_gain: null };
    const value = folded([learningRecord({ routing: fixed }), learningRecord({ routing: fixed, status: 'failed' }), learningRecord({ routing: fixed }), learningRecord({ routing: fixed })]);
    expect(routingAccuracy(value, T0)).toEqual({ routed: 4, first_choice_success_rate: 0.75, shadow: null });
  });

  it('counts first choices only: not a re-route, nor a later attempt that went to another specialist', () => {
    const fixed = { mode: 'fixed' as const, reason: 'fixed' as const, fixed: 'gpu', learned: null, expected_gain: null, chosen: 'gpu' };
    expect(routingIncrements(learningRecord({ specialist: 'gpu', routing: fixed, status: 'failed' }))).toEqual({ routed: 1, routed_success: 0 });
    // The table moved the subtask on to sim: its leaf carries the first decision, which chose gpu.
    expect(routingIncrements(learningRecord({ specialist: 'sim', routing: fixed }))).toBeNull();
    expect(routingIncrements(learningRecord({ specialist: 'sim', routing: { ...fixed, mode: 'learned', reason: 'reroute', learned: 'sim', chosen: 'sim' } }))).toBeNull();
    // A revision in fixed mode chooses by record: its chosen specialist is learned's pick.
    expect(routingIncrements(learningRecord({ specialist: 'sim', routing: { ...fixed, reason: 'revision', learned: 'sim', chosen: 'sim' } }))).toEqual({ routed: 1, routed_success: 1 });
  });

  it('counts shadow decisions, how often learned would differ, and its mean expected gain', () => {
    const shadow = (learned: string, gain: number | null) => learningRecord({ routing: { mode: 'shadow', reason: 'fixed', fixed: 'sim', learned, expected_gain: gain } });
    const value = folded([shadow('sim', 0), shadow('fast', 0.2), shadow('fast', 0.1), shadow('fast', null)]);
    const accuracy = routingAccuracy(value, T0)!;
    expect(accuracy.shadow).toEqual({ decisions: 4, differs: 3, mean_expected_gain: expect.closeTo(0.1, 12) as number });
  });

  it('decays counts, not rates', () => {
    const fixed = { mode: 'learned' as const, reason: 'sampled' as const, fixed: 'sim', learned: 'sim', expected_gain: 0 };
    const value = folded([learningRecord({ routing: fixed }), learningRecord({ routing: fixed, status: 'failed' })]);
    expect(routingAccuracy(value, T0 + DAY)).toEqual({ routed: 1, first_choice_success_rate: 0.5, shadow: null });
  });
});
