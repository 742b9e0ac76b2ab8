/** Histories for the Dispatcher's tests, made with the core's own arithmetic (as the Monitor's fold makes them). */
import { FIXED_NOW } from '@tierflow/runtime/testing';
import { addToSums, historyIncrements, specialistStats, type DecayedSums, type LearningRecord, type SpecialistStats } from '@tierflow/core';

/** Histories made in tests are made at the test context's fixed clock, so they come undecayed. */
export const NOW = FIXED_NOW;
const DAY = 86_400_000;

/** The decayed sums a run of leaf attempts leaves, all at {@link NOW}: `successes` then `failures`, each taking `latencyMs`. */
export function historyValue(successes: number, failures: number, latencyMs = 100, extra: Partial<LearningRecord> = {}): DecayedSums {
  const record = (status: LearningRecord['status']): LearningRecord => ({
    task_type: 't',
    specialist: 's',
    model: null,
    status,
    confidence: 0.8,
    latency_ms: latencyMs,
    tokens_in: 0,
    tokens_out: 0,
    cost_usd: 0,
    surprise: false,
    routing: null,
    ...extra,
  });
  let value: DecayedSums | null = null;
  for (let i = 0; i < successes; i++) value = addToSums(value, historyIncrements(record('success')), NOW, DAY);
  for (let i = 0; i < failures; i++) value = addToSums(value, historyIncrements(record('failed')), NOW, DAY);
  return value ?? { updated_at: NOW, half_life_ms: DAY, sums: {} };
}

/** A specialist's statistics after `successes` and `failures` (see {@link historyValue}). */
export function statsAfter(successes: number, failures: number, latencyMs = 100, extra: Partial<LearningRecord> = {}): SpecialistStats {
  return specialistStats(historyValue(successes, failures, latencyMs, extra), NOW);
}
