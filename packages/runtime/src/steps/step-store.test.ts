import { delegationPayloadSchema } from '@tierflow/protocol';
import type { Redis } from 'ioredis';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RedisWrites } from '../redis/fenced-batch.js';
import { signRecord } from '../security/signing.js';
import { StepStore, type StepState } from './step-store.js';
import { memoryKeySet } from '../testing/keys.js';

// read() is pure; the store's connection is never used here.
const store = new StepStore(null as unknown as Redis, '{t}', 'dispatcher', 60_000);
const keys = memoryKeySet();
const signed = new StepStore(null as unknown as Redis, '{t}', 'dispatcher', 60_000, keys.signing);

/** What `write` would store for job `jobId`. */
function written(by: StepStore, jobId: string, value: StepState = state): string {
  let text = '';
  by.write({ set: (_key: string, stored: string) => (text = stored) } as unknown as RedisWrites, jobId, value);
  return text;
}

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
    expect(store.read(JSON.stringify(state), 'j-1')).toEqual({ ok: true, value: state });
  });

  it('gives a state written without later fields the full parse, which fills in their defaults', () => {
    const older = { ...state, children: state.children.map(({ deadline: _deadline, ...child }) => child) } as Record<string, unknown>;
    delete older.answer_by;
    const read = store.read(JSON.stringify(older), 'j-1');
    if (!read.ok) throw new Error(read.reason);
    const parsed = read.value;
    expect(parsed.answer_by).toBeNull();
    expect(parsed.children.map((child) => child.deadline)).toEqual([null, null]);
    expect(parsed.children[0]!.request.priority).toBe(2);
  });

  it('refuses what is not a step state, saying where', () => {
    expect(store.read(JSON.stringify({ ...state, strategy: 'unanimous' }), 'j-1')).toMatchObject({ ok: false, reason: /strategy/ });
    expect(store.read(JSON.stringify({ ...state, children: [{ id: 'x', index: 0, request: { objective: 'no task type' }, deadline: null }] }), 'j-1')).toMatchObject({
      ok: false,
      reason: /task_type/,
    });
    expect(store.read('[]', 'j-1')).toMatchObject({ ok: false, reason: /not a step state/ });
    expect(store.read('{"round":', 'j-1')).toMatchObject({ ok: false, reason: /not JSON/ });
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
        expect(typeof store.read(text, 'j-1').ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });
});

describe('signed step state', () => {
  it("is the owning tier's, for its own job: read back as written", () => {
    expect(signed.read(written(signed, 'j-1'), 'j-1')).toMatchObject({ ok: true, value: { ...state, job_id: 'j-1' } });
  });

  it("refuses state the tier did not sign, signed by another tier's key, moved to another job, or altered", () => {
    expect(signed.read(written(store, 'j-1'), 'j-1')).toMatchObject({ ok: false, reason: /unsigned/ });
    const byFleet = JSON.stringify(signRecord({ ...state, job_id: 'j-1' }, keys.signer('fleet')));
    expect(signed.read(byFleet, 'j-1')).toMatchObject({ ok: false, reason: /signed by fleet .* only dispatcher may sign this/ });
    expect(signed.read(written(signed, 'j-1'), 'j-2')).toMatchObject({ ok: false, reason: 'it is the state of j-1, not j-2' });
    const altered = { ...(JSON.parse(written(signed, 'j-1')) as StepState), round: 7 };
    expect(signed.read(JSON.stringify(altered), 'j-1')).toMatchObject({ ok: false, reason: /does not match/ });
  });
});
