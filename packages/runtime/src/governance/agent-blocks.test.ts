import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { agentBlockedDetail, agentBlockKey, AgentBlocks, agentBlocksPrefix, type AgentBlock } from './agent-blocks.js';

const found = (rootId: string): AgentBlock => ({
  agent_id: 'echo',
  since: '2026-11-29T10:00:00.000Z',
  root_id: rootId,
  message_id: `${rootId}.0-0.0-0`,
  detail: 'a prompt hash that differs from the lock',
});

describe('agent blocks', () => {
  const db = usePrivateRedis();

  it('keeps the first finding, reads it back, and lifts it once', async () => {
    const prefix = uniquePrefix('blocks');
    const blocks = new AgentBlocks(db.redis, prefix);
    expect(await blocks.get('echo')).toBeNull();
    expect(await blocks.block(found('r1'))).toEqual(found('r1'));
    // A second finding does not move the first: the record names the run that found it.
    expect(await blocks.block(found('r2'))).toEqual(found('r1'));
    expect(await blocks.get('echo')).toEqual(found('r1'));
    expect(await blocks.lift('echo')).toEqual(found('r1'));
    expect(await blocks.get('echo')).toBeNull();
    expect(await blocks.lift('echo')).toBeNull();
  });

  it('still blocks on a record it cannot read', async () => {
    const prefix = uniquePrefix('blocks');
    await db.redis.set(agentBlockKey(prefix, 'echo'), '{"agent_id":"other"}');
    const block = await new AgentBlocks(db.redis, prefix).get('echo');
    expect(block?.agent_id).toBe('echo');
    expect(block?.detail).toMatch(/unreadable block record/);
  });

  it("keeps a deployment's blocks in its first cell, whatever the cells", () => {
    expect(agentBlocksPrefix({ prefix: '{tierflow}', cells: 1 })).toBe('{tierflow}');
    expect(agentBlockKey(agentBlocksPrefix({ prefix: '{tierflow}', cells: 4 }), 'echo')).toBe('{tierflow:0}:agent-blocked:echo');
  });

  it('tells since when, which run found it, and how to reconcile', () => {
    expect(agentBlockedDetail(found('r1'))).toBe(
      'agent "echo" is blocked since 2026-11-29T10:00:00.000Z: run r1 found a prompt hash that differs from the lock; run `tierflow lock --accept echo` to reconcile',
    );
  });
});
