import { TierflowError, type AgentIdentity, type DelegationPayloadInput } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { FakeBeads, delegated, delegationTo, fakeContext, settle } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { pinFor, registeredAgents, routeOf } from './agent-pins.js';
import { dispatcherHandler } from './handler.js';

const silent = { info: () => undefined, warn: () => undefined };
const sim: AgentIdentity = { agent_id: 'sim', agent_version: '1.0.0', prompt_hash: 'a'.repeat(64) };
const gpu: AgentIdentity = { agent_id: 'gpu-lora', agent_version: '2.0.0', prompt_hash: 'b'.repeat(64) };

function beadsWith(...agents: AgentIdentity[]): FakeBeads {
  const beads = new FakeBeads('ROUTING_DISPATCHER');
  // Written by the Fleet at its start; the fake takes them as they would be read.
  for (const agent of agents) beads.values.set(`execution/agents/${agent.agent_id}`, { ...agent, registered_at: '2025-01-15T10:30:00Z' });
  return beads;
}

function run(plan: Plan, beads: FakeBeads) {
  const payload: DelegationPayloadInput = { task_type: 'decompose_and_solve', objective: 'o', task_data: { plan } };
  const context = fakeContext(delegationTo('ROUTING_DISPATCHER', 'r1.0-0.0-0', payload), beads);
  return { context, handler: dispatcherHandler({ routing: { '*': ['gpu-lora', 'sim'] } }) };
}

describe('agent pins', () => {
  it('reads the published registry, identity fields only, skipping what is missing or malformed', async () => {
    const beads = beadsWith(sim);
    beads.values.set('execution/agents/bad', { agent_id: 'bad' });
    const found = await registeredAgents({ beads, log: silent }, ['sim', 'sim', 'bad', 'none']);
    expect([...found.entries()]).toEqual([['sim', sim]]);
  });

  it('leaves out an entry that is not JSON, saying so, rather than failing the dispatch', async () => {
    const store = beadsWith(sim);
    const warnings: unknown[] = [];
    const corrupt = TierflowError.permanent('beads:execution/agents/bad holds a value that is not JSON', { code: 'beads_corrupt' });
    const beads = Object.assign(Object.create(store) as typeof store, {
      get: (key: string) => (key.endsWith('/bad') ? Promise.reject(corrupt) : store.get(key)),
    });
    const found = await registeredAgents({ beads, log: { info: () => undefined, warn: (_message, fields) => warnings.push(fields) } }, ['sim', 'bad']);
    expect([...found.keys()]).toEqual(['sim']);
    expect(warnings).toEqual([{ key: 'execution/agents/bad' }]);
  });

  it("routes a pinned subtask to its agent only, and pins the plan's own identity over the registry's", () => {
    expect(routeOf({ objective: 'o', target_agent: gpu }, { '*': ['sim'] })).toEqual({ specialist: 'gpu-lora', alternates: [] });
    expect(routeOf({ objective: 'o' }, { '*': ['sim', 'gpu-lora'] })).toEqual({ specialist: 'sim', alternates: ['gpu-lora'] });
    const registered = new Map([
      ['sim', sim],
      ['gpu-lora', gpu],
    ]);
    const own = { ...gpu, prompt_hash: 'c'.repeat(64) };
    expect(pinFor({ target_agent: own }, 'gpu-lora', registered)).toEqual(own);
    expect(pinFor({ target_agent: own }, 'sim', registered)).toEqual(sim);
    expect(pinFor({}, 'nobody', registered)).toBeUndefined();
  });

  it('pins each Fleet delegation to the registered agent, and leaves unregistered ones unpinned', async () => {
    const { context, handler } = run({ strategy: 'all_success', subtasks: [{ objective: 'a', specialist_hint: 'sim' }, { objective: 'b' }] }, beadsWith(sim));
    const step = delegated(await handler.start(context));
    expect(step.children[0]).toMatchObject({ specialist_hint: 'sim', target_agent: sim });
    expect(step.children[1]).toMatchObject({ specialist_hint: 'gpu-lora' });
    expect(step.children[1]).not.toHaveProperty('target_agent');
  });

  it("pins the lock file's identity over what the Fleet publishes, and the registry's for an agent the lock does not list", async () => {
    const locked: AgentIdentity = { ...sim, prompt_hash: 'c'.repeat(64) };
    const found = await registeredAgents({ beads: beadsWith(sim, gpu), log: silent }, ['sim', 'gpu-lora'], () => Promise.resolve(new Map([['sim', locked]])));
    expect(found.get('sim')).toEqual(locked);
    expect(found.get('gpu-lora')).toEqual(gpu);
    const context = fakeContext(
      delegationTo('ROUTING_DISPATCHER', 'r1.0-0.0-0', {
        task_type: 'decompose_and_solve',
        objective: 'o',
        task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'a', specialist_hint: 'sim' }] } },
      }),
      beadsWith(sim),
    );
    const handler = dispatcherHandler({ lockedAgents: () => Promise.resolve(new Map([['sim', locked]])) });
    expect(delegated(await handler.start(context)).children[0]).toMatchObject({ specialist_hint: 'sim', target_agent: locked });
  });

  it('routes around an agent the Fleet does not register, pinning the alternate', async () => {
    const { context, handler } = run({ strategy: 'all_success', subtasks: [{ objective: 'render' }] }, beadsWith(sim));
    const first = delegated(await handler.start(context));
    const round = settle(context.assignment, 'ROUTING_DISPATCHER', first, 0, () => ({
      status: 'failed',
      summary: 'refused',
      confidence: 0,
      error_type: 'unknown_agent',
      error_detail: 'no agent "gpu-lora"',
      recoverable: false,
    }));
    const second = delegated(await handler.resume!(context, round));
    expect(second.children).toEqual([expect.objectContaining({ specialist_hint: 'sim', target_agent: sim })]);
  });
});
