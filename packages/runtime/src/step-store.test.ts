import { delegationPayloadSchema } from '@tierflow/protocol';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { StepStore, type StepState } from './step-store.js';

// parse() is pure; the store's connection is never used here.
const store = new StepStore(null as unknown as Redis, '{t}', 60_000);

const state: StepState = {
  round: 1,
  strategy: 'majority',
  children: [
    { id: 'r.0-0.1-0', index: 0, request: delegationPayloadSchema.parse({ task_type: 'execute', objective: 'a', timeout_ms: 5_000 }), deadline: 1_700_000_005_000, trace: '{"traceparent":"00-…"}' },
    { id: 'r.0-0.1-1', index: 1, request: delegationPayloadSchema.parse({ task_type: 'execute', objective: 'b' }), deadline: null },
  ],
  memo: { revisions: 1 },
  watchdog: '1|ROUTING_DISPATCHER|r.0-0',
  answer_by: null,
};

describe('StepStore.parse', () => {
  it('reads back what the runtime wrote', () => {
    expect(store.parse(JSON.stringify(state))).toEqual(state);
  });

  it('gives a state written without later fields the full parse, which fills in their defaults', () => {
    const older = { ...state, children: state.children.map(({ deadline: _deadline, ...child }) => child) } as Record<string, unknown>;
    delete older.answer_by;
    const parsed = store.parse(JSON.stringify(older));
    expect(parsed.answer_by).toBeNull();
    expect(parsed.children.map((child) => child.deadline)).toEqual([null, null]);
    expect(parsed.children[0]!.request.priority).toBe(2);
  });

  it('refuses what is not a step state, saying where', () => {
    expect(() => store.parse(JSON.stringify({ ...state, strategy: 'unanimous' }))).toThrow(/strategy/);
    expect(() => store.parse(JSON.stringify({ ...state, children: [{ id: 'x', index: 0, request: { objective: 'no task type' }, deadline: null }] }))).toThrow(/task_type/);
    expect(() => store.parse('[]')).toThrow();
  });
});
