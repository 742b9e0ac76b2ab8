import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenAiServer, redisClient } from '@tierflow/testing';
import type { RunNode } from '@tierflow/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { tierflow } from '../security/tier-processes.js';

// `tierflow inspect` over four worker processes, the Fleet's specialist an LLM behind a fake
// OpenAI-compatible endpoint: a leaf shows the prompt it sent and the answer it got.

const ANSWER = 'An answer long enough that the excerpt of it is cut: '.repeat(6).trim();
let project: string;
let models: FakeOpenAiServer;
let deployment: Deployment;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tierflow-inspect-'));
  models = await FakeOpenAiServer.start(['llm-writer']);
  models.defaultContent = JSON.stringify({ summary: 'wrote it', confidence: 0.8, output: ANSWER });
  const config = join(project, 'tierflow.config.json');
  await writeFile(config, JSON.stringify({ specialists: [{ kind: 'llm', name: 'llm-writer', baseURL: models.baseURL }] }));
  deployment = await startDeployment('inspect', { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: config, OPENAI_API_KEY: 'sk-never-shown' });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await models?.close();
  await rm(project, { recursive: true, force: true });
});

const leavesOf = (node: RunNode): RunNode[] => (node.children.length === 0 ? [node] : node.children.flatMap(leavesOf));

describe('tierflow inspect', () => {
  it("shows an LLM leaf's input, outcome, pass and model call, its prompt and answer whole with --calls; tierflow result takes the leaf", async () => {
    const rootId = await deployment.client.enqueue({
      objective: 'inspect me',
      task_data: {
        plan: {
          strategy: 'all_success',
          subtasks: [
            { objective: 'write a haiku about queues', specialist_hint: 'llm-writer', constraints: ['five, seven, five'] },
            { objective: 'write a limerick about queues', specialist_hint: 'llm-writer' },
          ],
        },
      },
    });
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
    const [leaf] = leavesOf((await deployment.client.tree(rootId))!);
    const env = { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix };

    const [full, short, json, result, unknown] = await Promise.all([
      tierflow(['inspect', leaf!.id, '--calls'], env),
      tierflow(['inspect', leaf!.id], env),
      tierflow(['inspect', leaf!.id, '--json'], env),
      tierflow(['result', leaf!.id], env),
      tierflow(['inspect', `${rootId}.0-0.0-0.0-9`], env),
    ]);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain(`node           ${leaf!.id}`);
    expect(full.stdout).toMatch(/tier\s+SPECIALIZED_FLEET\s+status success/);
    expect(full.stdout).toContain('  objective    write a haiku about queues');
    expect(full.stdout).toContain('  constraints  - five, seven, five');
    expect(full.stdout).toMatch(/passes\n\s+ATTEMPT.*\n\s+1\s.*answered/);
    expect(full.stdout).toMatch(/model calls \(1\)\n\s+1\. specialist\s+llm-writer at http:\/\/127\.0\.0\.1:\d+\/v1\s+12 in \/ 5 out/);
    // The prompt as sent, and the answer whole.
    expect(full.stdout).toMatch(/\[user\]\s+.*write a haiku about queues/);
    const calls = (text: string): string => text.slice(text.indexOf('model calls'));
    expect(calls(full.stdout)).toContain(ANSWER);
    expect(full.stdout).not.toContain('sk-never-shown');
    // Without --calls, the answer is cut to a line (the outcome's artifact shows it whole).
    expect(calls(short.stdout)).not.toContain(ANSWER);
    expect(short.stdout).toMatch(/answer \(stop\)\s+\{.*… \(\d+ chars\)/);

    const view = JSON.parse(json.stdout) as {
      recording: string;
      input: { context: { ref: string; value: unknown }[] };
      calls: { messages: { content: string }[]; answer: string }[];
      waits: { kind: string }[];
    };
    expect(view.recording).toBe('full');
    // The run's task graph, which both leaves read, shown in the leaf's input, and recorded once.
    const graph = view.input.context.find((item) => item.ref.endsWith('/task-graph'));
    expect(JSON.stringify(graph?.value)).toContain('write a limerick about queues');
    const redis = redisClient(deployment.redis.url);
    const recorded = await redis.xrange(`${deployment.runtime.prefix}:record:${rootId}`, '-', '+').finally(() => redis.disconnect());
    const contexts = recorded.flatMap(([, fields]) => (JSON.parse(fields[1]!) as { kind: string; ref?: string }[]).filter((entry) => entry.kind === 'context' && entry.ref === graph!.ref));
    expect(contexts).toHaveLength(1);
    expect(view.calls[0]!.answer).toContain(ANSWER);
    expect(view.waits.map((wait) => wait.kind)).toContain('queued');

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: `${leaf!.id}.out`, payload: { status: 'success', summary: 'wrote it' } });
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('no node') as string });
  }, 40_000);
});
