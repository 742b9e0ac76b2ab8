import { ERROR_TYPES } from '@tierflow/protocol';
import type { AgentBlock } from '@tierflow/runtime/admin';
import { delegationTo, FakeBeads, fakeContext } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { blockingAgents, type AgentBlockStore } from './agent-blocking.js';
import { fleetHandler } from './fleet-handler.js';
import { SpecialistRegistry } from './registry.js';
import { defineSpecialist } from './specialist.js';

function memoryBlocks(): AgentBlockStore & { readonly held: Map<string, AgentBlock> } {
  const held = new Map<string, AgentBlock>();
  return {
    held,
    get: (id) => Promise.resolve(held.get(id) ?? null),
    block: (block) => {
      if (!held.has(block.agent_id)) held.set(block.agent_id, block);
      return Promise.resolve(held.get(block.agent_id)!);
    },
  };
}

/** A Fleet's context for a delegation of run `rootId` naming `payload`'s agent. */
function contextFor(rootId: string, payload: Record<string, unknown>) {
  const assignment = delegationTo('SPECIALIZED_FLEET', `${rootId}.0-0.0-0`, { task_type: 'general', objective: 'echo it', ...payload });
  return fakeContext({ ...assignment, rootId }, new FakeBeads('SPECIALIZED_FLEET'));
}

describe('blocking agents', () => {
  let runs = 0;
  const echo = defineSpecialist({ name: 'echo', version: '1.0.0', config: { prompt: 'now' }, run: () => ((runs += 1), Promise.resolve({ summary: 'done', confidence: 1 })) });
  const registry = new SpecialistRegistry([echo]);
  const stale = { agent_id: 'echo', agent_version: '1.0.0', prompt_hash: '0'.repeat(64) };

  it('blocks an agent whose hash differs, then refuses every delegation to it without running it', async () => {
    const blocks = memoryBlocks();
    const handler = blockingAgents(fleetHandler(registry), blocks, registry);
    const first = await handler.start(contextFor('r1', { specialist_hint: 'echo', target_agent: stale }));
    expect(first).toMatchObject({ kind: 'outcome', outcome: { error_type: ERROR_TYPES.agentHashMismatch } });
    expect(blocks.held.get('echo')).toMatchObject({ agent_id: 'echo', root_id: 'r1' });

    runs = 0;
    const second = await handler.start(contextFor('r2', { specialist_hint: 'echo' }));
    expect(second).toMatchObject({ kind: 'outcome', outcome: { status: 'failed', error_type: ERROR_TYPES.agentBlocked, recoverable: false } });
    expect(second.kind === 'outcome' && second.outcome.error_detail).toMatch(/run r1 found .*`tierflow lock --accept echo`/);
    expect(runs).toBe(0);
  });

  it('runs an agent that is not blocked', async () => {
    const blocks = memoryBlocks();
    const handler = blockingAgents(fleetHandler(registry), blocks, registry);
    const step = await handler.start(contextFor('r3', { specialist_hint: 'echo' }));
    expect(step).toMatchObject({ kind: 'outcome', outcome: { status: 'success' } });
    expect(blocks.held.size).toBe(0);
  });
});
