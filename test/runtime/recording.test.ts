import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { ObjectiveFile, RunNode, TierWorker } from '@tierflow/runtime';
import { isDigest, readRecording, recordKey, type NodeRecord } from '@tierflow/runtime/admin';
import { FakeOpenAiServer, redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';

const plan = (objective: string): ObjectiveFile => ({
  objective,
  task_data: {
    plan: {
      strategy: 'all_success',
      subtasks: [
        { objective: `${objective}: piece one`, specialist_hint: 'llm-writer' },
        { objective: `${objective}: piece two`, specialist_hint: 'llm-writer' },
      ],
    },
  },
});

/** Every node id of a run's tree. */
function treeIds(tree: RunNode | null): string[] {
  return tree ? [tree.id, ...tree.children.flatMap((child) => treeIds(child))] : [];
}

/**
 * What each node did, recorded across worker processes: three tiers as processes, the Fleet in
 * this one with an LLM specialist against a fake OpenAI-compatible endpoint.
 */
describe.each([['full'], ['metadata'], ['none']] as const)('recording with TIERFLOW_RECORD=%s', (mode) => {
  let deployment: Deployment;
  let fleet: TierWorker;
  let server: FakeOpenAiServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await FakeOpenAiServer.start(['llm-writer']);
    deployment = await startDeployment(`recording-${mode}`, { TIERFLOW_LOG: 'silent', TIERFLOW_RECORD: mode }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    const registry = new SpecialistRegistry([llmSpecialist({ name: 'llm-writer', baseURL: server.baseURL, apiKey: 'sk-not-recorded' })]);
    fleet = await startFleetWorker({ runtime: { ...deployment.runtime, record: mode }, registry, log: { info: () => undefined, warn: () => undefined } });
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    redis?.disconnect();
    await deployment?.stop();
    await server?.close();
  });

  it('keeps each node’s input, outcome, passes and model calls as the mode says', async () => {
    const rootId = await deployment.client.enqueue(plan('record me'));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
    const { prefix } = deployment.runtime;
    const recording = await readRecording(redis, prefix, rootId);
    if (mode === 'none') {
      expect(await redis.exists(recordKey(prefix, rootId))).toBe(0);
      expect(recording.nodes.size).toBe(0);
      return;
    }
    const ids = treeIds(await deployment.client.tree(rootId));
    expect(ids).toHaveLength(5);
    expect([...recording.nodes.keys()].sort()).toEqual([...ids].sort());
    expect(recording.skipped).toBe(0);
    const root = recording.nodes.get(rootId)!;
    // The root parks for its child, then answers; it waited for its children in between.
    expect(root.passes.map((pass) => pass.end)).toEqual(['parked', 'answered']);
    expect(root.waits.map((wait) => wait.kind)).toContain('children');
    expect(root.tier).toBe('PROGRESS_MONITOR');
    const leaves = [...recording.nodes.values()].filter((node) => node.tier === 'SPECIALIZED_FLEET');
    expect(leaves).toHaveLength(2);
    for (const leaf of leaves) {
      expect(leaf.passes.map((pass) => pass.end)).toEqual(['answered']);
      expect(leaf.calls).toHaveLength(1);
      const [call] = leaf.calls;
      expect(call).toMatchObject({ purpose: 'specialist', model: 'llm-writer', endpoint: server.baseURL, error: null, replayed: false, tries: 1 });
      expect(call!.usage).toMatchObject({ tokens_in: 12, tokens_out: 5, llm_calls: 1 });
      expect(call!.request_hash).toMatch(/^[0-9a-f]{64}$/);
    }
    const texts = JSON.stringify([...recording.nodes.values()]);
    // No credential is recorded, whatever the mode.
    expect(texts).not.toContain('sk-not-recorded');
    if (mode === 'full') {
      const one = leaves.find((leaf) => JSON.stringify(leaf.delegation?.message).includes('piece one')) as NodeRecord;
      expect(JSON.stringify(one.calls[0]!.request)).toContain('record me: piece one');
      expect(one.calls[0]!.answer).toEqual({ content: server.defaultContent, model: 'llm-writer', finish_reason: 'stop' });
      expect((one.outcome?.message as { payload: { status: string } }).payload.status).toBe('success');
    } else {
      // Sizes and hashes only: no prompt, no answer, no message.
      expect(texts).not.toContain('piece one');
      for (const leaf of leaves) {
        expect(isDigest(leaf.calls[0]!.request)).toBe(true);
        expect(isDigest(leaf.calls[0]!.answer)).toBe(true);
        expect(isDigest(leaf.delegation?.message)).toBe(true);
      }
    }
    // Kept as long as the run's audit trail.
    expect(await redis.pttl(recordKey(prefix, rootId))).toBeGreaterThan(deployment.runtime.auditTtlMs - 60_000);
  }, 40_000);
});
