import type { ObjectiveFile } from '@tierflow/runtime';

/** The model the bench's model server lists, so the Fleet serves it as a specialist. */
export const LLM_BENCH_MODEL = 'bench-model';

const leaves = (leaf: object): ObjectiveFile => ({
  objective: 'bench',
  task_data: { plan: { strategy: 'all_success', subtasks: [1, 2, 3].map((index) => ({ objective: `subtask ${index}`, ...leaf })) } },
});

// The bench shape both ways, each leaf with one 11-byte artifact (the fake model answers
// `{"ok":true}`), so what differs is how a leaf gets its answer, not what travels up.
export const simObjective = leaves({ task_data: { sim: { output_bytes: 11 } } });
export const llmObjective = leaves({ specialist_hint: LLM_BENCH_MODEL });
