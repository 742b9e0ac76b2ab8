import { delegationPayloadSchema } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { fleetDraft, type FleetDraftInput } from './fleet-draft.js';

const base: FleetDraftInput = {
  subtask: { objective: 'write binary search', task_type: 'execute_code', task_data: { language: 'python' } },
  index: 1,
  total: 3,
  specialist: 'python-lora',
  parent: { priority: 1, constraints: ['O(log n)'] },
  fleetTimeoutMs: 30_000,
  taskGraphRef: 'beads:routing/r1/task-graph',
};

describe('fleetDraft', () => {
  it.each<[string, Partial<FleetDraftInput>, object]>([
    [
      'the protocol’s example shape',
      {},
      {
        task_type: 'execute_code',
        objective: 'write binary search',
        constraints: ['O(log n)'],
        priority: 1,
        timeout_ms: 30_000,
        specialist_hint: 'python-lora',
        context_refs: ['beads:routing/r1/task-graph'],
        task_data: { language: 'python', subtask_index: 1, subtask_total: 3 },
      },
    ],
    ['own constraints and timeout win', { subtask: { objective: 'o', constraints: ['fast'], timeout_ms: 5 } }, { constraints: ['fast'], timeout_ms: 5 }],
    ['no task type is general', { subtask: { objective: 'o' } }, { task_type: 'general', task_data: { subtask_index: 1, subtask_total: 3 } }],
    ['the subtask’s expected output schema goes along', { subtask: { objective: 'o', expected_output_schema: { type: 'object' } } }, { expected_output_schema: { type: 'object' } }],
  ])('%s', (_name, override, expected) => {
    const draft = fleetDraft({ ...base, ...override });
    expect(draft).toMatchObject(expected);
    expect(delegationPayloadSchema.safeParse(draft).success).toBe(true);
  });
});
