import { addToSums, historyIncrements, specialistStats } from '@tierflow/core';
import { describe, expect, it } from 'vitest';
import { modelHistoryKey, routingAccuracyKey, specialistHistoryKey } from './history-keys.js';
import { historyFold } from './history-writes.js';
import { learningRecord } from '../testing/learning-record.js';

const T0 = 1_700_000_000_000;

describe('historyFold', () => {
  it('adds each record to its specialist, its model and the routing accuracy, one add per key', () => {
    const routing = { mode: 'shadow' as const, reason: 'fixed' as const, fixed: 'sim', learned: 'fast', expected_gain: 0.1 };
    const records = [learningRecord({ model: 'm1', routing }), learningRecord({ status: 'failed', model: 'm1', routing }), learningRecord({ task_type: 'write', specialist: 'writer', routing: null })];
    const fold = historyFold(records);
    expect(fold.adds.map((add) => add.key)).toEqual([
      specialistHistoryKey('execute_code', 'sim'),
      modelHistoryKey('execute_code', 'sim', 'm1'),
      routingAccuracyKey(),
      routingAccuracyKey('execute_code'),
      specialistHistoryKey('write', 'writer'),
    ]);
    expect(fold.pairs).toEqual([
      { taskType: 'execute_code', specialist: 'sim' },
      { taskType: 'write', specialist: 'writer' },
    ]);
    expect(fold.skipped).toBe(0);
    // Summed, the two records give what adding them one by one gives.
    const [first, second] = records.map(historyIncrements);
    const summed = addToSums(null, fold.adds[0]!.increments, T0, 1000);
    const oneByOne = addToSums(addToSums(null, first!, T0, 1000), second!, T0, 1000);
    expect(specialistStats(summed, T0)).toEqual(specialistStats(oneByOne, T0));
    expect(fold.adds[2]!.increments).toMatchObject({ routed: 2, routed_success: 1, shadow_decisions: 2, shadow_differs: 2 });
  });

  it('leaves out a record whose names make no key, and says so', () => {
    const fold = historyFold([learningRecord({ task_type: 'x'.repeat(600) }), learningRecord()]);
    expect(fold.skipped).toBe(1);
    expect(fold.pairs).toEqual([{ taskType: 'execute_code', specialist: 'sim' }]);
  });
});
