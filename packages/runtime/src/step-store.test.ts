import { delegationPayloadSchema } from '@tierflow/protocol';
import type { Redis } from 'ioredis';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StepStore, type StepState } from './step-store.js';

// read() is pure; the store's connection is never used here.
const store = new StepStore(null as unknown as Redis, '{t}', 'dispatcher', 60_000);

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

describe('StepStore.read', () => {
  it('reads back what the runtime wrote', () => {
    expect(store.read(JSON.stringify(state))).toEqual({ ok: true, value: state });
  });

  it('gives a state written without later fields the full parse, which fills in their defaults', () => {
    const older = { ...state, children: state.children.map(({ deadline: _deadline, ...child }) => child) } as Record<string, unknown>;
    delete older.answer_by;
    const read = store.read(JSON.stringify(older));
    if (!read.ok) throw new Error(read.reason);
    const parsed = read.value;
    expect(parsed.answer_by).toBeNull();
    expect(parsed.children.map((child) => child.deadline)).toEqual([null, null]);
    expect(parsed.children[0]!.request.priority).toBe(2);
  });

  it('refuses what is not a step state, saying where', () => {
    expect(store.read(JSON.stringify({ ...state, strategy: 'unanimous' }))).toMatchObject({ ok: false, reason: /strategy/ });
    expect(store.read(JSON.stringify({ ...state, children: [{ id: 'x', index: 0, request: { objective: 'no task type' }, deadline: null }] }))).toMatchObject({
      ok: false,
      reason: /task_type/,
    });
    expect(store.read('[]')).toMatchObject({ ok: false, reason: /not a step state/ });
    expect(store.read('{"round":')).toMatchObject({ ok: false, reason: /not JSON/ });
  });

  it('never throws, whatever is stored (fuzzed)', () => {
    const stored = fc.oneof(
      fc.string(),
      fc.json(),
      // Near misses: the right outline with fields of any type.
      fc.record({ round: fc.anything(), strategy: fc.anything(), children: fc.anything(), memo: fc.anything(), answer_by: fc.anything() }).map((value) => JSON.stringify(value)),
      fc.anything().map((child) => JSON.stringify({ ...state, children: [child] }) ?? '{}'),
    );
    fc.assert(
      fc.property(stored, (text) => {
        expect(typeof store.read(text).ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });
});
