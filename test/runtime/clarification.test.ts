import type { TierSlug } from '@tierflow/protocol';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { auditKey } from '@tierflow/runtime/admin';
import { type RunNode, type TierflowClient } from '@tierflow/runtime';
import { redisClient, waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';
import { tierflow } from '../security/tier-processes.js';

// A question that reaches the root waits for a person's answer, and the same run goes on with
// it (docs/protocol.md#clarification): four worker processes on a private Redis.

const QUIET = { TIERFLOW_LOG: 'silent' };

/** The text artifacts the sims made (the aggregate's own summary artifact left out). */
function texts(artifacts: readonly { artifact_type: string; inline_content?: string | null }[]): string[] {
  return artifacts.filter((artifact) => artifact.artifact_type === 'text').map((artifact) => artifact.inline_content ?? '');
}

/** Waits until the run asks, and returns its tree then. */
async function asking(client: TierflowClient, rootId: string, questions = 1): Promise<RunNode> {
  let tree: RunNode | null = null;
  await waitFor(
    async () => {
      tree = await client.tree(rootId);
      return tree?.status === 'input_required' && tree.questions?.length === questions;
    },
    { timeoutMs: 15_000, description: `run ${rootId} waiting for ${questions} answer(s)` },
  );
  return tree!;
}

describe('answers resume the run', () => {
  let deployment: Deployment;
  let env: NodeJS.ProcessEnv;
  const extra: TierProcesses[] = [];

  beforeAll(async () => {
    deployment = await startDeployment('clarify', QUIET);
    env = { ...QUIET, REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix };
  }, 30_000);
  afterAll(async () => {
    await Promise.all(extra.map((processes) => processes.stop()));
    await deployment.stop();
  });

  it('waits with its questions, and once answered goes on as the same run, its wait counted against no deadline', async () => {
    const { client } = deployment;
    const objective = { ...simPlan('all_success', [{ ask: 'Which region?' }, { output_bytes: 8 }]), timeout_ms: 6_000 };
    const enqueuedAt = Date.now();
    const rootId = await client.enqueue(objective);
    // A wait with the default limit (the objective's 6 s and 5 s of grace) outlasts the person. The
    // deadline leaves the run's first, cold pass room to ask on a loaded machine.
    const result = client.waitForResult(rootId);
    const tree = await asking(client, rootId);
    const [question] = tree.questions!;
    expect(question).toMatchObject({ question: 'Which region?', tier: 'SPECIALIZED_FLEET', answer: null });
    // Named by the outcome of the leaf that asked.
    expect(treeNodes(tree, 'SPECIALIZED_FLEET').map((leaf) => `${leaf.id}.out`)).toContain(question!.id);
    expect((await client.runs({ status: 'input_required' })).map((run) => run.root_id)).toContain(rootId);

    const status = await tierflow(['status', rootId, '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: rootId, status: 'input_required', questions: [{ id: question!.id, question: 'Which region?' }] });

    // Past the objective's own deadline and the wait's default limit: time spent waiting for a person counts against neither.
    await waitFor(() => Date.now() - enqueuedAt > 11_500, { timeoutMs: 20_000, description: 'the deadline and the default wait limit passed' });
    const answered = await tierflow(['answer', rootId, 'eu-west'], env);
    expect(answered).toMatchObject({ code: 0, stdout: expect.stringContaining('goes on') as string });

    const outcome = await result;
    expect(outcome.payload.status).toBe('success');
    expect(texts(outcome.payload.artifacts)).toContain('eu-west');
    // The same root sent its Architect the round again: round 0 asked, round 1 had the answer.
    const architects = treeNodes((await client.tree(rootId))!, 'ABSTRACT_ARCHITECT');
    expect(architects.map((node) => [node.id, node.status])).toEqual([
      [`${rootId}.0-0`, 'needs_clarification'],
      [`${rootId}.1-0`, 'success'],
    ]);
    // The audit trail shows the question and the answer.
    const trail = await tierflow(['audit', rootId, '--json'], env);
    const entries = JSON.parse(trail.stdout) as { kind: string; id: string; detail: string }[];
    expect(entries.filter((entry) => entry.kind === 'question' || entry.kind === 'answer').map((entry) => [entry.kind, entry.id, entry.detail])).toEqual([
      ['question', question!.id, 'Which region?'],
      ['answer', question!.id, 'eu-west'],
    ]);
  }, 60_000);

  it('several questions are answered one by one (--to), and the run goes on once all are', async () => {
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ ask: 'Which region?' }, { ask: 'Which year?' }]));
    const tree = await asking(client, rootId, 2);
    const byText = new Map(tree.questions!.map((question) => [question.question, question.id]));
    const first = await tierflow(['answer', rootId, '2026', '--to', byText.get('Which year?')!], env);
    expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining('1 still open') as string });
    const unknown = await tierflow(['answer', rootId, 'x', '--to', `${rootId}.9-9.out`], env);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('[unknown_question]') as string });
    const again = await tierflow(['answer', rootId, 'again', '--to', byText.get('Which year?')!], env);
    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining('[already_answered]') as string });
    expect((await asking(client, rootId, 2)).questions!.map((question) => question.answer)).toEqual(expect.arrayContaining([null, '2026']));

    const report = await client.answer(rootId, 'eu-west');
    expect(report).toMatchObject({ answered: [byText.get('Which region?')], open: 0, resumed: true });
    const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    expect(texts(outcome.payload.artifacts).sort()).toEqual(['2026', 'eu-west']);
  }, 40_000);

  it('a waiting run can be cancelled, and then asks nothing', async () => {
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ ask: 'Which region?' }, { output_bytes: 4 }]));
    await asking(client, rootId);
    await client.cancel(rootId);
    const outcome = await client.waitForResult(rootId, { timeoutMs: 10_000 });
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_type: 'cancelled' });
    // What the round had brought comes back with it: the leaf that did not ask had succeeded.
    expect(texts(outcome.payload.artifacts)).toEqual(['tier']);
    await expect(client.answer(rootId, 'too late')).rejects.toMatchObject({ code: 'not_waiting' });
  }, 30_000);

  it('the wait survives its workers: killed and restarted while it waits, the run goes on when answered', async () => {
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ ask: 'Which region?' }]));
    await asking(client, rootId);
    const all: TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];
    await Promise.all(
      all.map(async (tier) => {
        const child = deployment.tiers.children.get(tier)!;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    let ready = 0;
    extra.push(spawnTiers({ ...process.env, ...env, OTEL_TRACES_EXPORTER: 'none' }, (_, line) => void (line.includes('worker ready') && ready++), all));
    await waitFor(() => ready === all.length, { description: 'four new workers' });
    expect((await client.tree(rootId))?.status).toBe('input_required');
    await client.answer(rootId, 'eu-west');
    // Generous: four fresh processes on a loaded two-core machine still warm up as they resume.
    const outcome = await client.waitForResult(rootId, { timeoutMs: 45_000 });
    expect(outcome.payload).toMatchObject({ status: 'success' });
  }, 90_000);
});

describe('an unanswered question', () => {
  it('ends the run needs_clarification once the wait runs out, its questions in the outcome', async () => {
    const deployment = await startDeployment('clarify-wait', { ...QUIET, TIERFLOW_ANSWER_WAIT_MS: '1500' });
    try {
      const { client } = deployment;
      const rootId = await client.enqueue(simPlan('all_success', [{ ask: 'Which region?' }]));
      await asking(client, rootId);
      const outcome = await client.waitForResult(rootId, { timeoutMs: 15_000 });
      expect(outcome.payload).toMatchObject({ status: 'needs_clarification', error_type: 'ambiguous_request', questions: [{ question: 'Which region?', tier: 'SPECIALIZED_FLEET' }] });
      expect(outcome.payload.summary).toContain('no answer within 1.5 s');
      const redis = redisClient(deployment.redis.url);
      try {
        // Nothing is left asking.
        expect(await redis.exists(`${deployment.runtime.prefix}:questions:${rootId}`)).toBe(0);
        expect(await redis.xlen(auditKey(deployment.runtime.prefix, rootId))).toBeGreaterThan(0);
      } finally {
        redis.disconnect();
      }
    } finally {
      await deployment.stop();
    }
  }, 40_000);
});
