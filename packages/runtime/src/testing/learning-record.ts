import type { LearningRecord } from '@tierflow/core';

/** A learning record of a successful leaf attempt, with `overrides`. */
export function learningRecord(overrides: Partial<LearningRecord> = {}): LearningRecord {
  return {
    task_type: 'execute_code',
    specialist: 'sim',
    model: null,
    status: 'success',
    confidence: 0.9,
    latency_ms: 100,
    tokens_in: 10,
    tokens_out: 20,
    cost_usd: 0.001,
    surprise: false,
    routing: null,
    ...overrides,
  };
}
