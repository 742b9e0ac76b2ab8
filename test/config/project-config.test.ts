import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BeadsStore } from '@tierflow/beads';
import { connect } from '@tierflow/runtime/admin';
import { completion, FakeOpenAiServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { runCommand } from '../support/run-command.js';

// A user's project as `tierflow.config.ts` describes it: a specialist written in the file, one
// from a module beside it, a route, and every model of an OpenAI-compatible endpoint.
const CONFIG = `
import type { ProjectConfigInput } from '@tierflow/cli';

const shout = {
  name: 'shout',
  version: '1.0.0',
  run: async ({ objective }: { objective: string }) => ({ summary: objective.toUpperCase(), confidence: 0.9, artifacts: [{ artifact_type: 'text', content: objective.toUpperCase() }] }),
};

export default {
  specialists: [shout, { kind: 'module', module: './specialists/echo.mjs' }],
  models: { baseURL: process.env.TEST_MODELS_URL },
  routing: { loud: ['shout'] },
  architect: { planner: { kind: 'llm', model: 'planner' } },
} satisfies ProjectConfigInput;
`;

const ECHO = `
export default {
  name: 'echo',
  version: '2.0.0',
  run: async ({ objective }) => ({ summary: 'echoed ' + objective, confidence: 0.7, artifacts: [{ artifact_type: 'text', content: objective }] }),
};
`;

let project: string;
let models: FakeOpenAiServer;
let deployment: Deployment;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tierflow-project-'));
  await mkdir(join(project, 'specialists'));
  await writeFile(join(project, 'tierflow.config.ts'), CONFIG);
  await writeFile(join(project, 'specialists', 'echo.mjs'), ECHO);
  models = await FakeOpenAiServer.start(['python-lora', 'base/model-with-a-slash']);
  models.defaultContent = JSON.stringify({ summary: 'wrote it', confidence: 0.85, output: 'def search(xs, x): ...' });
  deployment = await startDeployment('project-config', { TIERFLOW_CONFIG: join(project, 'tierflow.config.ts'), TEST_MODELS_URL: models.baseURL, OPENAI_API_KEY: 'test' });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await models?.close();
  await rm(project, { recursive: true, force: true });
});

describe('a project configuration', () => {
  it('runs its own specialists, routes by its table, and serves every model the endpoint lists', async () => {
    const id = await deployment.client.enqueue({
      objective: 'three kinds of work',
      task_data: {
        plan: {
          strategy: 'all_success',
          subtasks: [
            { objective: 'say it loud', task_type: 'loud' },
            { objective: 'say it back', specialist_hint: 'echo' },
            { objective: 'write binary search', specialist_hint: 'python-lora' },
          ],
        },
      },
    });
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status, `${outcome.payload.summary}\n${deployment.logs.join('\n')}`).toBe('success');
    const contents = outcome.payload.artifacts.map((artifact) => artifact.inline_content);
    expect(contents).toEqual(expect.arrayContaining(['SAY IT LOUD', 'say it back', 'def search(xs, x): ...']));
    const call = models.requests.find((request) => request.path === '/v1/chat/completions');
    expect(call?.body).toMatchObject({ model: 'python-lora' });
    expect(deployment.logs.some((line) => line.includes('configured by') && line.includes('tierflow.config.ts'))).toBe(true);
    // The Monitor lists the models the Fleet serves, as system state.
    const redis = connect(deployment.redis.url);
    try {
      const loaded = await new BeadsStore(redis, { tier: 'PROGRESS_MONITOR', prefix: deployment.runtime.prefix }).get('system/loaded-loras');
      expect(loaded).toMatchObject({ models: ['python-lora'], specialists: expect.arrayContaining([expect.objectContaining({ agent_id: 'echo', model: null })]) as unknown });
    } finally {
      redis.disconnect();
    }
  });
});

describe('a model as the Architect’s planner', () => {
  it('plans an objective that comes without a plan, and the run follows the plan', async () => {
    models.respond = (body) =>
      body.model === 'planner'
        ? {
            body: completion(
              'planner',
              JSON.stringify({
                strategy: 'all_success',
                subtasks: [
                  { objective: 'say it back', specialist_hint: 'echo' },
                  { objective: 'shout it', specialist_hint: 'shout' },
                ],
              }),
            ),
          }
        : undefined;
    const outcome = await deployment.client.waitForResult(await deployment.client.enqueue({ objective: 'plan this yourself' }), { timeoutMs: 30_000 });
    expect(outcome.payload.status, outcome.payload.summary).toBe('success');
    expect(outcome.payload.artifacts.map((artifact) => artifact.inline_content)).toEqual(expect.arrayContaining(['say it back', 'SHOUT IT']));
  });

  it('is told the objective’s due date and acceptance criteria in its prompt', async () => {
    const before = models.requests.length;
    models.respond = (body) =>
      body.model === 'planner' ? { body: completion('planner', JSON.stringify({ strategy: 'all_success', subtasks: [{ objective: 'say it back', specialist_hint: 'echo' }] })) } : undefined;
    const id = await deployment.client.enqueue({ objective: 'plan with criteria', deadline_hint: '2026-03-01', acceptance_criteria: ['every claim has a source', 'under 200 words'] });
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status, outcome.payload.summary).toBe('success');
    const asked = models.requests.slice(before).find((request) => (request.body as { model?: string } | null)?.model === 'planner');
    const prompt = JSON.stringify((asked?.body as { messages?: unknown } | undefined)?.messages);
    expect(prompt).toContain('Due: 2026-03-01');
    expect(prompt).toContain('Acceptance criteria:\\n- every claim has a source\\n- under 200 words');
    models.respond = null;
  });

  it('fails the run with invalid_plan when the model’s plan does not parse, even after it was told why', async () => {
    const before = models.requests.length;
    models.respond = (body) => (body.model === 'planner' ? { body: completion('planner', 'Step 1: write code. Step 2: test it.') } : undefined);
    const outcome = await deployment.client.waitForResult(await deployment.client.enqueue({ objective: 'plan this badly' }), { timeoutMs: 30_000 });
    expect(outcome.payload).toMatchObject({ status: 'failed', error_type: 'invalid_plan', recoverable: false });
    expect(outcome.payload.error_detail).toContain('not JSON');
    expect(models.requests.slice(before).filter((request) => (request.body as { model?: string } | null)?.model === 'planner')).toHaveLength(2);
    models.respond = null;
  });
});

describe('a bad project configuration stops the command at start, exit status 2, naming the file and field', () => {
  it.each<[string, string, unknown, string]>([
    [
      'an unknown specialist kind',
      'tierflow.config.json',
      { specialists: [{ kind: 'lora', name: 'x' }] },
      "tierflow.config.json: specialists[0].kind: Invalid discriminator value. Expected 'llm' | 'module'",
    ],
    ['a misspelt field', 'tierflow.config.json', { routes: {} }, 'tierflow.config.json: (the file): Unrecognized key: "routes"'],
    ['a module that is not there', 'tierflow.config.json', { specialists: [{ kind: 'module', module: './nowhere.mjs' }] }, 'tierflow.config.json: specialists[0]: cannot load'],
    ['a secret whose variable is unset', 'tierflow.config.json', { specialists: [{ kind: 'llm', name: 'x', apiKeyEnv: 'TEST_UNSET_KEY' }] }, 'specialists[0].apiKeyEnv: TEST_UNSET_KEY is not set'],
    ['a file that is not JSON', 'tierflow.config.json', '{ nope', 'tierflow.config.json: cannot be read'],
  ])('%s', async (_name, file, content, expected) => {
    const dir = await mkdtemp(join(tmpdir(), 'tierflow-bad-config-'));
    try {
      await writeFile(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
      // `up` reads the file with the same code as a worker: one case shows it stops there too.
      const commands = [['worker', 'fleet', '--config', join(dir, file)], ...(content === '{ nope' ? [['up', '--config', join(dir, file)]] : [])];
      for (const args of commands) {
        const { status, output } = await runCommand(args, {});
        expect(status, output).toBe(2);
        expect(output).toContain(expected);
        expect(output).not.toContain('worker ready');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a --config that names no file', async () => {
    const { status, output } = await runCommand(['up', '--config', '/nonexistent/tierflow.config.ts'], {});
    expect(status, output).toBe(2);
    expect(output).toContain('/nonexistent/tierflow.config.ts: no such configuration file');
  });
});
