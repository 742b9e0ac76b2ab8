import { buildOutcome } from '../messages/messages.js';
import { delegationPayloadSchema } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import type { SettledChild } from '../policy/handler.js';
import { usageBelow, withHopUsage, withUsageBelow } from './usage-rollup.js';

const usage = (tokens_in: number, tokens_out: number, cost_usd: number, llm_calls: number) => ({ tokens_in, tokens_out, cost_usd, llm_calls });

function child(index: number, resources_used: Record<string, unknown>): SettledChild {
  const id = `root.0-0.0-${index}`;
  return {
    id,
    index,
    request: delegationPayloadSchema.parse({ task_type: 'execute_code', objective: 'x' }),
    outcome: buildOutcome('SPECIALIZED_FLEET', id, { status: 'success', summary: 'ok', confidence: 1, resources_used }, 5, 0),
  };
}

describe('usage roll-up', () => {
  it('sums the settled rounds kept in the step state and the round settling now', () => {
    const received = [child(0, { model: 'm', usage: usage(10, 5, 0.001, 1) }), child(1, { usage: usage(20, 10, 0.002, 2) }), child(2, { delay_ms: 3 })];
    expect(usageBelow({ usage: usage(100, 50, 0.01, 3) }, received)).toEqual(usage(130, 65, 0.013, 6));
    expect(usageBelow(null, [])).toEqual(usage(0, 0, 0, 0));
  });

  it('reads a kept total and children’s usage leniently: what cannot be read counts as nothing', () => {
    const state = { usage: { tokens_in: 'lots' } as unknown as ReturnType<typeof usage> };
    expect(usageBelow(state, [child(0, { usage: 'garbage' }), child(1, { usage: usage(1, 1, 0, 1) })])).toEqual(usage(1, 1, 0, 1));
  });

  it('adds what the policy reported itself to what was used below, keeping its other resources', () => {
    const draft = { status: 'success', summary: 'ok', confidence: 1, resources_used: { revisions: 1, usage: usage(5, 5, 0.5, 1) } } as const;
    expect(withUsageBelow(draft, usage(10, 10, 0.25, 2)).resources_used).toEqual({ revisions: 1, usage: usage(15, 15, 0.75, 3) });
    expect(withUsageBelow({ status: 'failed', summary: 'x', confidence: 0 }, usage(1, 2, 0, 1)).resources_used).toEqual({ usage: usage(1, 2, 0, 1) });
  });

  it.each([
    ['a stopped job that reported nothing: what its calls settled', undefined, usage(12, 0, 0.001, 1), usage(12, 0, 0.001, 1)],
    ['a policy that reported its usage: its own report', usage(5, 5, 0, 1), usage(12, 0, 0, 2), usage(5, 5, 0, 1)],
    ['no call settled: the draft as it was', undefined, usage(0, 0, 0, 0), undefined],
    ['a refused call (a call, no tokens) still counts', undefined, usage(0, 0, 0, 1), usage(0, 0, 0, 1)],
  ])('gives a hop its own usage: %s', (_, reported, spent, expected) => {
    const draft = { status: 'cancelled', summary: 'stopped', confidence: 0, resources_used: { checker: {}, ...(reported ? { usage: reported } : {}) } } as const;
    const hop = withHopUsage(draft, spent);
    expect(hop.resources_used?.['usage']).toEqual(expected);
    expect(hop.resources_used?.['checker']).toEqual({});
  });
});
