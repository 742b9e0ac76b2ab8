import { BudgetExceededError } from '@tierflow/runtime';
import { UNMETERED, UNRECORDED_CALLS, type PlanRequest, type RevisionContext } from '@tierflow/runtime/policy';
import { FakeBeads } from '@tierflow/runtime/testing';
import { completion, FakeOpenAiServer } from '@tierflow/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { llmPlanner, planIn, planMessages, revisionText } from './llm-planner.js';

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start(['planner']);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.replies.length = 0;
});

const warnings: string[] = [];
const request = (): PlanRequest => ({
  objective: 'Write a binary search',
  taskType: 'solve',
  constraints: ['O(log n)'],
  taskData: { language: 'python' },
  contextRefs: [],
  beads: new FakeBeads('ABSTRACT_ARCHITECT'),
  deadline: null,
  signal: new AbortController().signal,
  log: { info: () => undefined, warn: (message) => warnings.push(message) },
  usage: UNMETERED,
  calls: UNRECORDED_CALLS,
});
const planner = () => llmPlanner({ model: 'planner', baseURL: server.baseURL, apiKey: 'test', specialists: ['writer', 'code-runner'] });
const reply = (content: unknown) => ({ body: completion('planner', typeof content === 'string' ? content : JSON.stringify(content)) });
const good = {
  strategy: 'first_success',
  subtasks: [
    { objective: 'write it', specialist_hint: 'writer' },
    { objective: 'write it another way', specialist_hint: 'writer' },
  ],
};

describe('llmPlanner', () => {
  it('asks the model for a plan as structured output, telling it the specialists, and returns the plan', async () => {
    server.replies.push(reply(good));
    await expect(planner()(request())).resolves.toEqual(good);
    const body = server.requests[0]?.body as { model: string; messages: { content: string }[]; response_format: { json_schema: { schema: { properties: { strategy: unknown } } } } };
    expect(body.model).toBe('planner');
    expect(body.messages[1]?.content).toContain('Objective: Write a binary search');
    expect(body.messages[1]?.content).toContain('Specialists you may name in specialist_hint: writer, code-runner');
    expect(body.response_format.json_schema.schema.properties.strategy).toMatchObject({ enum: expect.arrayContaining(['first_success']) as unknown });
  });

  it('tells the model how a subtask takes the work of others, and reads it back', async () => {
    const pipeline = {
      strategy: 'all_success',
      subtasks: [
        { objective: 'draft it', specialist_hint: 'writer' },
        { objective: 'review the draft', depends_on: [1] },
      ],
    };
    server.replies.push(reply(pipeline));
    await expect(planner()(request())).resolves.toEqual(pipeline);
    const body = server.requests[0]?.body as {
      messages: { content: string }[];
      response_format: { json_schema: { schema: { properties: { subtasks: { items: { properties: Record<string, unknown> } } } } } };
    };
    expect(body.messages[0]?.content).toContain('"depends_on"');
    expect(body.response_format.json_schema.schema.properties.subtasks.items.properties.depends_on).toEqual({ type: 'array', items: { type: 'integer', minimum: 1 } });
  });

  it('sends an invalid plan back once with its problems, and takes the corrected one', async () => {
    server.replies.push(reply({ strategy: 'all_success', subtasks: [] }), reply(good));
    await expect(planner()(request())).resolves.toEqual(good);
    const second = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)?.content).toContain('subtasks');
    expect(warnings.at(-1)).toContain('invalid plan');
  });

  it('fails with invalid_plan when the second answer is no better', async () => {
    server.replies.push(reply('a plan: do it'), reply({ strategy: 'all_success', subtasks: [{ objective: 'x', specialist_hint: 'nobody' }] }));
    await expect(planner()(request())).rejects.toMatchObject({ code: 'invalid_plan', message: expect.stringContaining('no specialist "nobody"') as unknown });
    expect(server.requests).toHaveLength(2);
  });
});

describe('llmPlanner on a revision', () => {
  const revision: RevisionContext = {
    round: 1,
    plan: {
      strategy: 'all_success',
      subtasks: [
        { objective: 'write it', specialist_hint: 'writer' },
        { objective: 'test it', task_type: 'test' },
      ],
    },
    redo: [2],
    failed: [{ subtask_index: 2, description: 'test it', task_type: 'test', specialist: 'code-runner', tried: ['code-runner'], error_type: 'execution_error', summary: 'exit code 1', attempts: 1 }],
    succeeded: [{ subtask_index: 1, specialist: 'writer', summary: 'wrote it' }],
  };

  it('puts the failure in the prompt (errors, specialists, attempts, what succeeded), not the old plan as task data, and returns the new plan', async () => {
    const replanned = {
      strategy: 'first_success',
      subtasks: [
        { objective: 'test it with pytest', specialist_hint: 'writer' },
        { objective: 'test it by hand', specialist_hint: 'writer' },
      ],
    };
    server.replies.push(reply(replanned));
    await expect(planner()({ ...request(), taskData: { language: 'python', plan: revision.plan }, revision })).resolves.toEqual(replanned);
    const user = (server.requests[0]?.body as { messages: { content: string }[] }).messages[1]?.content ?? '';
    expect(user).toContain('This is revision 1');
    expect(user).toContain('- subtask 2 (task type test): "test it"; by code-runner, 1 attempt; execution_error: exit code 1');
    expect(user).toContain('- subtask 1 by writer: wrote it');
    expect(user).toContain('Plan only the work of subtask 2 again.');
    expect(user).toContain(`The plan that ran (JSON): ${JSON.stringify(revision.plan)}`);
    expect(user).toContain('Task data (JSON):\n{"language":"python"}');
  });

  it("refuses a prompt over the delegation's max_context_tokens before calling the model, and keeps one under it", async () => {
    await expect(planner()({ ...request(), maxContextTokens: 20 })).rejects.toMatchObject({ code: 'context_too_large', retryable: false });
    expect(server.requests).toHaveLength(0);
    server.replies.push(reply(good));
    await expect(planner()({ ...request(), maxContextTokens: 100_000 })).resolves.toEqual(good);
  });

  it('tells the model when the work is due and what it must satisfy, the criteria once', () => {
    const user = planMessages({ ...request(), deadlineHint: '2026-03-01', acceptanceCriteria: ['all tests pass'], taskData: { acceptance_criteria: ['all tests pass'], language: 'go' } }, {})[1]
      ?.content as string;
    expect(user).toContain('Due: 2026-03-01');
    expect(user).toContain('Acceptance criteria:\n- all tests pass');
    expect(user).toContain('Task data (JSON):\n{"language":"go"}');
  });

  it('says nothing of a revision on a first plan', () => {
    expect(revisionText(revision)).not.toBe('');
    const user = planMessages(request(), {})[1]?.content as string;
    expect(user).not.toContain('revision');
  });
});

describe('llmPlanner and the run budget', () => {
  it('reserves each call before sending it (its prompt estimated and max_tokens) and settles it with its tokens; a spent budget sends nothing', async () => {
    const reserved: unknown[] = [];
    const settled: unknown[] = [];
    server.replies.push(reply(good));
    const usage = {
      reserve: (estimate?: unknown) => {
        reserved.push(estimate);
        return Promise.resolve({ settle: (used: unknown) => Promise.resolve(void settled.push(used)) });
      },
      record: () => Promise.resolve(),
    };
    await llmPlanner({ model: 'planner', baseURL: server.baseURL, apiKey: 'test', maxTokens: 300 })({ ...request(), usage });
    const body = server.requests[0]?.body as { messages: unknown; response_format: unknown; max_tokens: number };
    expect(body.max_tokens).toBe(300);
    const promptTokens = Math.ceil(JSON.stringify({ messages: body.messages, response_format: body.response_format }).length / 4);
    expect(reserved).toEqual([{ tokens_in: promptTokens, tokens_out: 300, cost_usd: 0, llm_calls: 1 }]);
    expect(settled).toEqual([{ tokens_in: 12, tokens_out: 5, cost_usd: 0, llm_calls: 1 }]);
    const spent = { ...request(), usage: { reserve: () => Promise.reject(new BudgetExceededError('r1', 'max_llm_calls 1')), record: () => Promise.resolve() } };
    await expect(planner()(spent)).rejects.toMatchObject({ code: 'budget_exceeded' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('planIn', () => {
  it.each([
    ['not JSON', 'sure!', 'not JSON'],
    ['no subtasks', JSON.stringify({ strategy: 'all_success', subtasks: [] }), '$plan.subtasks'],
    ['an unknown strategy', JSON.stringify({ strategy: 'best', subtasks: [{ objective: 'x' }] }), '$plan.strategy'],
    [
      'a cycle',
      JSON.stringify({
        strategy: 'all_success',
        subtasks: [
          { objective: 'x', depends_on: [2] },
          { objective: 'y', depends_on: [1] },
        ],
      }),
      '$plan.subtasks[0].depends_on[0]: subtasks 1 and 2',
    ],
  ])('refuses %s', (_name, text, problem) => {
    expect(() => planIn(text)).toThrow(expect.objectContaining({ code: 'invalid_plan', message: expect.stringContaining(problem) as unknown }));
  });
});
