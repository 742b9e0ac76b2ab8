import { DELEGATION_CHAIN_KEY, delegationPayloadSchema } from '@tierflow/protocol';
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
        task_data: { language: 'python', task_type: 'execute_code', subtask_index: 1, subtask_total: 3 },
      },
    ],
    ['own constraints and timeout win', { subtask: { objective: 'o', constraints: ['fast'], timeout_ms: 5 } }, { constraints: ['fast'], timeout_ms: 5 }],
    ['no task type is general', { subtask: { objective: 'o' } }, { task_type: 'general', task_data: { subtask_index: 1, subtask_total: 3 } }],
    ['the subtask’s expected output schema goes along', { subtask: { objective: 'o', expected_output_schema: { type: 'object' } } }, { expected_output_schema: { type: 'object' } }],
    [
      'the plan’s error policy, the subtask’s own fields over it',
      { subtask: { objective: 'o', error_policy: { on_timeout: 'partial_result' } }, planPolicy: { on_timeout: 'escalate', on_format_mismatch: 'adapt' } },
      { error_policy: { on_timeout: 'partial_result', on_format_mismatch: 'adapt' } },
    ],
    ['a concern, when sent again for low confidence', { concern: 'confidence 0.20 is under 0.5' }, { task_data: { concern: 'confidence 0.20 is under 0.5' } }],
    [
      'the work it depends on, as task_data.upstream',
      { upstream: [{ subtask_index: 2, message_id: 'r.0-1', task_type: 'write', specialist: 'sim', summary: 'drafted', confidence: 0.9, evidence_grade: null, artifacts: [] }] },
      { task_data: { upstream: [{ subtask_index: 2, message_id: 'r.0-1', task_type: 'write', specialist: 'sim', summary: 'drafted', confidence: 0.9, evidence_grade: null, artifacts: [] }] } },
    ],
  ])('%s', (_name, override, expected) => {
    const draft = fleetDraft({ ...base, ...override });
    expect(draft).toMatchObject(expected);
    expect(delegationPayloadSchema.safeParse(draft).success).toBe(true);
  });

  it('adds no upstream field for a subtask that depends on nothing', () => {
    expect(fleetDraft({ ...base, upstream: [] }).task_data).toEqual({ language: 'python', task_type: 'execute_code', subtask_index: 1, subtask_total: 3 });
  });

  it('hands every leaf the delegation chain its own delegation carries, never the plan’s', () => {
    const chain = { depth: 1, visited: ['d-a'] };
    const planned = { ...base.subtask, task_data: { ...base.subtask.task_data, [DELEGATION_CHAIN_KEY]: { depth: 0, visited: [] } } };
    const handed = fleetDraft({ ...base, subtask: planned, parent: { ...base.parent, task_data: { [DELEGATION_CHAIN_KEY]: chain } } });
    expect(handed.task_data?.[DELEGATION_CHAIN_KEY]).toEqual(chain);
    expect(fleetDraft({ ...base, subtask: planned }).task_data).not.toHaveProperty([DELEGATION_CHAIN_KEY]);
  });

  it("carries the subtask's handoff constraints, and none when it sets none", () => {
    expect(fleetDraft({ ...base, subtask: { ...base.subtask, handoff: { cascade_check: false } } }).handoff).toEqual({ cascade_check: false });
    expect(fleetDraft(base)).not.toHaveProperty('handoff');
  });
});
