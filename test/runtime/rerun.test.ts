import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, RunNode } from '@tierflow/runtime';
import { readRecording, recordKey } from '@tierflow/runtime/admin';
import { completion, FakeOpenAiServer, redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { runCommand } from '../support/run-command.js';
import { serveDeployment, type Served } from '../support/served.js';

// tierflow rerun over four worker processes, with a Fleet whose specialist is a model of the fake
// OpenAI-compatible endpoint (which counts the requests it gets): replay, fork, strict replay of an
// edited run, and an exported run replayed on a fresh deployment.

const PLAN: ObjectiveFile = {
  objective: 'write the pieces',
  task_data: { plan: { strategy: 'all_success', subtasks: [1, 2, 3].map((index) => ({ objective: `piece ${index}`, specialist_hint: 'writer' })) } },
};

let project: string;
let models: FakeOpenAiServer;
let deployment: Deployment;
let served: Served;
let redis: Redis;
let original: { rootId: string; outcome: OutcomeMessage; leaves: string[] };

/** What the model answered: the piece its prompt asked for, so each leaf's answer is its own. */
function answerFor(body: { model?: string; messages?: { role: string; content: string }[] }) {
  const prompt = JSON.stringify(body.messages ?? []);
  const piece = /piece \d[^"\\]*/.exec(prompt)?.[0] ?? 'nothing';
  return { body: completion(body.model ?? 'writer', JSON.stringify({ summary: `wrote ${piece}`, confidence: 0.8, output: `the text of ${piece}` })) };
}

const completions = () => models.completions();

function fleetNodes(node: RunNode): string[] {
  return [...(node.tier === 'SPECIALIZED_FLEET' ? [node.id] : []), ...node.children.flatMap(fleetNodes)].sort();
}

/** What a replay must reproduce of an outcome: everything but timings and ids, and the order of artifacts, which is the order the leaves answered in. */
function essence(outcome: OutcomeMessage) {
  const { status, summary, confidence, artifacts, error_type } = outcome.payload;
  const pieces = artifacts.map((artifact) => ({ type: artifact.artifact_type, content: artifact.inline_content }));
  return { status, summary, confidence, error_type, artifacts: pieces.sort((a, b) => String(a.content).localeCompare(String(b.content))) };
}

async function startWith(label: string): Promise<Deployment> {
  return startDeployment(label, { TIERFLOW_CONFIG: join(project, 'tierflow.config.json'), OPENAI_API_KEY: 'test', TIERFLOW_LOG: 'silent' });
}

beforeAll(async () => {
  models = await FakeOpenAiServer.start(['writer']);
  models.respond = answerFor;
  project = await mkdtemp(join(tmpdir(), 'tierflow-rerun-'));
  await writeFile(join(project, 'tierflow.config.json'), JSON.stringify({ models: { baseURL: models.baseURL } }));
  deployment = await startWith('rerun');
  redis = redisClient(deployment.redis.url);
  served = await serveDeployment(deployment.runtime);
  const rootId = await deployment.client.enqueue(PLAN);
  const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
  expect(outcome.payload.status, deployment.logs.join('\n')).toBe('success');
  expect(completions()).toBe(3);
  original = { rootId, outcome, leaves: fleetNodes((await deployment.client.tree(rootId))!) };
  expect(original.leaves).toHaveLength(3);
}, 90_000);

afterAll(async () => {
  redis?.disconnect();
  await served?.close();
  await deployment?.stop();
  await models?.close();
  await rm(project, { recursive: true, force: true });
});

describe('tierflow rerun', () => {
  it('--replay: sends no request, charges nothing, and reproduces the outcome; linked both ways (over the API)', async () => {
    const before = completions();
    const response = await fetch(`${served.url}/api/runs/${original.rootId}/rerun`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ replay: 'strict' }) });
    expect(response.status).toBe(202);
    const { root_id: rootId } = (await response.json()) as { root_id: string };
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(completions() - before).toBe(0);
    expect(essence(outcome)).toEqual(essence(original.outcome));
    expect(outcome.payload.resources_used.usage).toMatchObject({ tokens_in: 0, tokens_out: 0, cost_usd: 0 });
    const recording = await readRecording(redis, deployment.runtime.prefix, rootId);
    const calls = [...recording.nodes.values()].flatMap((node) => node.calls);
    expect(calls).toHaveLength(3);
    expect(calls.every((call) => call.replayed)).toBe(true);
    const rerun = (await (await fetch(`${served.url}/api/runs/${rootId}`)).json()) as { rerun_of: string | null };
    expect(rerun.rerun_of).toBe(original.rootId);
    const before2 = (await (await fetch(`${served.url}/api/runs/${original.rootId}`)).json()) as { reruns: string[] };
    expect(before2.reruns).toContain(rootId);
  });

  it('--from a leaf: sends exactly that leaf’s request, and reuses the other leaves’ outcomes', async () => {
    const before = models.requests.length;
    const { rootId } = await deployment.client.rerun(original.rootId, { from: original.leaves[1]! });
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    const sent = models.requests.slice(before).filter((request) => request.path === '/v1/chat/completions');
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]!.body)).toContain('piece 2');
    expect(essence(outcome)).toEqual(essence(original.outcome));
    const recording = await readRecording(redis, deployment.runtime.prefix, rootId);
    const reused = [...recording.nodes.values()].filter((node) => node.reused_from !== null);
    expect(reused.map((node) => node.reused_from).sort()).toEqual([original.leaves[0], original.leaves[2]]);
    expect(reused.map((node) => node.node).sort()).toEqual([original.leaves[0]!, original.leaves[2]!].map((leaf) => `${rootId}${leaf.slice(original.rootId.length)}`));
  });

  it('--from a leaf with --set: that leaf runs its edited delegation, its one request carries the edit, the rest is reused', async () => {
    const before = models.requests.length;
    const { rootId } = await deployment.client.rerun(original.rootId, { from: original.leaves[2]!, set: ['objective=piece 3, in French'] });
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
    const sent = models.requests.slice(before).filter((request) => request.path === '/v1/chat/completions');
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]!.body)).toContain('piece 3, in French');
    const forked = `${rootId}${original.leaves[2]!.slice(original.rootId.length)}`;
    const recording = await readRecording(redis, deployment.runtime.prefix, rootId);
    expect(recording.nodes.get(forked)?.delegation).toMatchObject({ edits: ['objective=piece 3, in French'], message: { payload: { objective: 'piece 3, in French' } } });
    expect(outcome.payload.artifacts.map((artifact) => artifact.inline_content)).toContain('the text of piece 3, in French');
    // An edit that leaves no delegation is refused by the node, which answers so.
    const bad = await deployment.client.rerun(original.rootId, { from: original.leaves[0]!, set: ['priority="high"'] });
    const refused = await deployment.client.waitForResult(bad.rootId, { timeoutMs: 30_000 });
    expect(refused.payload.status).not.toBe('success');
    const node = (await readRecording(redis, deployment.runtime.prefix, bad.rootId)).nodes.get(`${bad.rootId}${original.leaves[0]!.slice(original.rootId.length)}`);
    expect(node?.outcome?.message).toMatchObject({ payload: { error_type: 'handoff_refused', error_detail: expect.stringContaining('priority') as unknown } });
  });

  it('--replay=strict with an edited input fails with replay_miss, naming the node, and sends nothing', async () => {
    const before = completions();
    const { rootId } = await deployment.client.rerun(original.rootId, { replay: 'strict', set: ['task_data.plan.subtasks.1.constraints=["in French"]'] });
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(completions() - before).toBe(0);
    expect(outcome.payload.status).not.toBe('success');
    const recording = await readRecording(redis, deployment.runtime.prefix, rootId);
    const missed = [...recording.nodes.values()].filter((node) => (node.outcome?.message as { payload?: { error_type?: string } } | undefined)?.payload?.error_type === 'replay_miss');
    expect(missed).toHaveLength(1);
    const detail = (missed[0]!.outcome!.message as { payload: { error_detail: string } }).payload.error_detail;
    expect(detail).toContain(missed[0]!.node);
  });

  it('exported, then replayed strictly from the file on a fresh deployment (the CLI both ways)', async () => {
    const env = { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix };
    const exported = await runCommand(['runs', 'export', original.rootId], env);
    expect(exported.status, exported.output).toBe(0);
    const file = join(project, 'run.json');
    await writeFile(file, exported.output);
    expect(JSON.parse(exported.output)).toMatchObject({ format: 'tierflow-run', version: 1, root: { root_id: original.rootId } });

    const fresh = await startWith('rerun-fresh');
    try {
      const before = completions();
      const rerun = await runCommand(['rerun', '--from-file', file, '--replay=strict', '--wait', '--json'], { REDIS_URL: fresh.redis.url, TIERFLOW_PREFIX: fresh.runtime.prefix });
      expect(rerun.status, rerun.output).toBe(0);
      const outcome = JSON.parse(rerun.output.slice(rerun.output.indexOf('{'))) as OutcomeMessage;
      expect(essence(outcome)).toEqual(essence(original.outcome));
      expect(completions() - before).toBe(0);
      // Nothing of the original was on that Redis but what the file brought.
      const freshRedis = redisClient(fresh.redis.url);
      try {
        expect(await freshRedis.exists(recordKey(fresh.runtime.prefix, original.rootId))).toBe(0);
      } finally {
        freshRedis.disconnect();
      }
    } finally {
      await fresh.stop();
    }
  }, 60_000);
});
