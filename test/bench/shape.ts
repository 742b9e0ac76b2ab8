import type { ObjectiveFile } from '@tierflow/runtime';

/** The shape the benchmarks share: sim at delay 0, fan-out 3 at the Dispatcher, all_success. */
export const benchObjective: ObjectiveFile = {
  objective: 'bench',
  task_data: {
    plan: {
      strategy: 'all_success',
      subtasks: [1, 2, 3].map((index) => ({ objective: `subtask ${index}`, task_data: { sim: { delay_ms: 0 } } })),
    },
  },
};

/** Nearest-rank percentile of an ascending array; NaN for none (fan-out.ts measures no single roots). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
