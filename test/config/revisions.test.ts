import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BeadsStore } from '@tierflow/beads';
import { revisionIncrements } from '@tierflow/core';
import { connect } from '@tierflow/runtime/admin';
import { readRevisionStats, revisionHistoryKey } from '@tierflow/runtime/policy';
import { completion, FakeOpenAiServer, type FakeRequest } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';

// Revisions that re-plan with the failure in hand, and revise-or-stop from history
// (docs/protocol.md#revisions), over four worker processes: the Architect's planner is a model
// behind an OpenAI-compatible endpoint (a fake here), the Fleet serves two module specialists,
// one that always fails and one that always succeeds.
const CONFIG = `
import type { ProjectConfigInput } from '@tierflow/cli';

export default {
  specialists: [{ kind: 'module', module: './specialists.mjs' }],
  models: { baseURL: process.env.TEST_MODELS_URL, discover: false },
  routing: { work: ['flaky', 'steady'] },
  architect: { planner: { kind: 'llm', model: 'planner' } },
} satisfies ProjectConfigInput;
`;

const SPECIALISTS = `
export default [
  {
    name: 'flaky',
    version: '1.0.0',
    run: async ({ objective }) => ({ status: 'failed', summary: 'flaky gave up', confidence: 0.9, error_type: 'tests_failed', error_detail: 'flaky could not ' + objective, recoverable: true }),
  },
  {
    name: 'steady',
    version: '1.0.0',
    run: async ({ objective }) => ({ summary: 'steady did ' + objective, confidence: 0.9, artifacts: [{ artifact_type: 'text', content: 'steady did ' + objective }] }),
  },
];
`;

const HALF_LIFE_MS = 86_400_000;
let project: string;
let models: FakeOpenAiServer;
let deployment: Deployment;
let beads: BeadsStore;
let redis: ReturnType<typeof connect>;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tierflow-revisions-'));
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'tierflow.config.ts'), CONFIG);
  await writeFile(join(project, 'specialists.mjs'), SPECIALISTS);
  models = await FakeOpenAiServer.start(['planner']);
  models.respond = (body) => (body.model === 'planner' ? { body: completion('planner', planFor(userText(body))) } : undefined);
  deployment = await startDeployment('revisions', { TIERFLOW_CONFIG: join(project, 'tierflow.config.ts'), TEST_MODELS_URL: models.baseURL, OPENAI_API_KEY: 'test' });
  redis = connect(deployment.redis.url);
  beads = new BeadsStore(redis, { tier: 'PROGRESS_MONITOR', prefix: deployment.runtime.prefix });
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
  await models?.close();
  await rm(project, { recursive: true, force: true });
});

function userText(body: { messages?: { role: string; content: string }[] }): string {
  return body.messages?.find((message) => message.role === 'user')?.content ?? '';
}

/** The planner's model: three parts of which two go to the failing specialist; on a revision, the failed work once more, by the other. */
function planFor(prompt: string): string {
  // A revision of the built-in kind: this model answers nothing usable, twice.
  if (prompt.includes('This is revision') && prompt.includes('reroute')) return 'no idea';
  if (prompt.includes('This is revision')) return JSON.stringify({ strategy: 'first_success', subtasks: [{ objective: 'parts two and three, carefully', specialist_hint: 'steady' }] });
  return JSON.stringify({
    strategy: 'all_success',
    subtasks: [
      { objective: 'part one', specialist_hint: 'steady' },
      { objective: 'part two', specialist_hint: 'flaky' },
      { objective: 'part three', specialist_hint: 'flaky' },
    ],
  });
}

/** The planner's prompts about an objective, in order. */
function plannerPrompts(objective: string): string[] {
  return models.requests
    .filter((request: FakeRequest) => request.path === '/v1/chat/completions' && (request.body as { model?: string } | null)?.model === 'planner')
    .map((request) => userText(request.body as { messages?: { role: string; content: string }[] }))
    .filter((prompt) => prompt.includes(`Objective: ${objective}`));
}

describe('a revision that re-plans with the failure in hand', () => {
  it('asks the planner with what failed and why, and runs the new plan it returns', async () => {
    const objective = 'a three-part job';
    const id = await deployment.client.enqueue({ objective, task_data: { task_type: 'three-parts' } });
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 60_000 });
    expect(outcome.payload.status, `${outcome.payload.summary}\n${deployment.logs.join('\n')}`).toBe('success');
    expect(outcome.payload.resources_used).toMatchObject({ revisions: 1 });

    const [first, revision, ...more] = plannerPrompts(objective);
    expect(first).not.toContain('This is revision');
    expect(more).toEqual([]);
    // The failure in hand: each failed subtask, its specialist, attempts, error type and words; what succeeded.
    expect(revision).toContain('This is revision 1');
    expect(revision).toContain('- subtask 2: "part two"; by flaky, 1 attempt; tests_failed: flaky could not part two');
    expect(revision).toContain('- subtask 3: "part three"; by flaky, 1 attempt; tests_failed: flaky could not part three');
    expect(revision).toContain('- subtask 1 by steady: steady did part one');
    expect(revision).toContain('Plan only the work of subtasks 2, 3 again.');

    // The new plan ran: its work sits beside the kept part.
    const contents = outcome.payload.artifacts.map((artifact) => artifact.inline_content);
    expect(contents).toEqual(expect.arrayContaining(['steady did part one', 'steady did parts two and three, carefully']));
    expect(contents).not.toContain('steady did part two');

    // The Monitor kept how the revision went, under the run's task type.
    const stats = await readRevisionStats(beads, 'three-parts', Date.now());
    expect(stats?.samples).toBeCloseTo(1, 3);
    expect(stats?.succeeded).toBeCloseTo(1, 3);
  });

  it('without a usable plan from the planner, sends the failed work to the next candidate of its route', async () => {
    const objective = 'reroute this work';
    const id = await deployment.client.enqueue({
      objective,
      task_data: { task_type: 'reroutes', plan: { strategy: 'all_success', subtasks: [{ objective: 'the work', task_type: 'work' }] } },
    });
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 60_000 });
    expect(outcome.payload.status, `${outcome.payload.summary}\n${deployment.logs.join('\n')}`).toBe('success');
    expect(outcome.payload.resources_used).toMatchObject({ revisions: 1 });
    // flaky, first in the table, failed it; the revision avoided it.
    expect(outcome.payload.artifacts.map((artifact) => artifact.inline_content)).toContain('steady did the work');
    expect(plannerPrompts(objective)).toHaveLength(2);
  });
});

describe('revise or stop', () => {
  it('stops at once when revisions of the task type rarely succeed, and says why in the outcome', async () => {
    const now = Date.now();
    for (let i = 0; i < 6; i++) await beads.addDecayed(revisionHistoryKey('doomed'), revisionIncrements(1, false), { halfLifeMs: HALF_LIFE_MS, now });
    const objective = 'a doomed job';
    const id = await deployment.client.enqueue({ objective, task_data: { task_type: 'doomed' } });
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 60_000 });
    expect(outcome.payload, deployment.logs.join('\n')).toMatchObject({ status: 'partial', error_type: 'majority_failed', recoverable: false, resources_used: { revisions: 0 } });
    expect(outcome.payload.error_detail).toContain('not revised: revisions of this task type rarely succeed: 0% of 6');
    expect(outcome.payload.summary).toContain('(not revised: revisions of this task type rarely succeed');
    // The planner was asked for the first plan only.
    expect(plannerPrompts(objective)).toHaveLength(1);
    // A run that did not revise adds nothing to the record.
    expect((await readRevisionStats(beads, 'doomed', Date.now()))?.samples).toBeCloseTo(6, 2);
  });
});
