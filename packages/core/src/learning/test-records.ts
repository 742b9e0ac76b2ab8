import type { DecayedSums } from './decayed-sums.js';
import { addToSums } from './decayed-sums.js';
import type { LearningRecord } from './learning-record.js';
import { historyIncrements } from './specialist-stats.js';

/** A leaf attempt for tests: a success of `sp` at 0.9 in 100 ms unless told otherwise. */
export function record(overrides: Partial<LearningRecord> = {}): LearningRecord {
  return {
    task_type: 'code',
    specialist: 'sp',
    model: null,
    status: 'success',
    confidence: 0.9,
    latency_ms: 100,
    tokens_in: 10,
    tokens_out: 20,
    cost_usd: 0.01,
    surprise: false,
    routing: null,
    ...overrides,
  };
}

/** A history folded from records, each at its own time (default: all at 0). */
export function fold(records: readonly LearningRecord[], halfLifeMs = 86_400_000, at: (index: number) => number = () => 0): DecayedSums | null {
  let value: DecayedSums | null = null;
  records.forEach((item, index) => {
    value = addToSums(value, historyIncrements(item), at(index), halfLifeMs);
  });
  return value;
}
