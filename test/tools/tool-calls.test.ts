import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { NodeView } from '@tierflow/runtime/admin';
import { completion, FakeOpenAiServer, toolCallsCompletion, waitFor, type FakeReply, type FakeToolCall } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierflow } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpReceiver, tracingTo, type OtlpReceiver } from '../support/otlp-receiver.js';
import { treeNodes } from '../support/runs.js';

// LLM specialists calling tools (docs/extending.md#tools), over four worker processes: function
// tools from the project file and a stdio MCP server's tools, the model an OpenAI-compatible
// server this test runs, scripted per objective to ask for tool calls.
const FAKE_MCP = fileURLToPath(new URL('../../apps/fleet/src/tools/mcp/testdata/fake-mcp-server.js', import.meta.url));

let dir: string;
let mcpLog: string;
/** Each word look_up was run with, one a line: a replay must not add to it. */
let lookups: string;
let models: FakeOpenAiServer;
let receiver: OtlpReceiver;
let deployment: Deployment;

interface Message {
  role: string;
  content: string | null;
}

/** What the model answers for each objective: asked with the tool results so far (those of the latest round last). */
const SCRIPTS: Record<string, (results: string[], round: number) => FakeReply> = {};
const asks = (...calls: FakeToolCall[]): FakeReply => ({ body: toolCallsCompletion('helper', calls) });
const answers = (output: unknown): FakeReply => ({ body: completion('helper', JSON.stringify({ summary: 'done with tools', confidence: 0.9, output })) });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-tools-'));
  mcpLog = join(dir, 'mcp.log');
  models = await FakeOpenAiServer.start(['helper']);
  models.respond = (body) => {
    const messages = (body.messages ?? []) as Message[];
    const objective = /^Objective: (.*)$/m.exec(messages.find((message) => message.role === 'user')?.content ?? '')?.[1] ?? '';
    const results = messages.filter((message) => message.role === 'tool').map((message) => message.content ?? '');
    const rounds = messages.filter((message) => message.role === 'assistant').length;
    return SCRIPTS[objective]?.(results, rounds);
  };
  lookups = join(dir, 'lookups.log');
  const config = `
import { appendFileSync } from 'node:fs';
export default {
  tools: [
    { name: 'look_up', description: 'Looks a word up', parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] }, run: ({ word }) => (appendFileSync(${JSON.stringify(lookups)}, word + '\\n'), word + ': found') },
    { name: 'write_note', description: 'Writes a note', approve: true, run: (args) => 'wrote ' + JSON.stringify(args) },
    { name: 'forbidden', description: 'Outside the boundaries', run: () => 'it ran' },
  ],
  mcp: { fake: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FAKE_MCP)}], env: { FAKE_MCP_LOG: ${JSON.stringify(mcpLog)} } } },
  specialists: [{ kind: 'llm', name: 'helper', baseURL: ${JSON.stringify(models.baseURL)}, tools: ['look_up', 'write_note', 'forbidden', 'mcp:fake/*'], maxToolCalls: 4 }],
  routing: { tools: ['helper'] },
  boundaries: { 'fleet:helper': ['tool:look_up', 'tool:write_note', 'tool:mcp:fake/*'] },
};
`;
  await writeFile(join(dir, 'tierflow.config.mjs'), config);
  receiver = await startOtlpReceiver();
  deployment = await startDeployment('tools', { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: join(dir, 'tierflow.config.mjs'), ...tracingTo(receiver, 'http/json'), OTEL_BSP_SCHEDULE_DELAY: '50' });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await models?.close();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const env = () => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

function enqueue(objective: string, extra: Record<string, unknown> = {}, subtask: Record<string, unknown> = {}): Promise<string> {
  return deployment.client.enqueue({ objective, task_data: { plan: { strategy: 'all_success', subtasks: [{ objective, task_type: 'tools', ...subtask }] } }, ...extra });
}

async function leafOf(rootId: string): Promise<NodeView> {
  const [leaf] = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
  const { stdout, stderr } = await tierflow(['inspect', leaf!.id, '--json'], env());
  expect(stderr).toBe('');
  return JSON.parse(stdout) as NodeView;
}

async function trail(rootId: string): Promise<{ kind: string; to: string; status: string; detail: string; data?: Record<string, unknown> }[]> {
  return JSON.parse((await tierflow(['audit', rootId, '--json'], env())).stdout) as never;
}

/** What the model answered with (the tool results it was handed, as these scripts answer), one a line. */
function output(outcome: OutcomeMessage): string {
  const artifact = outcome.payload.artifacts.find((item) => item.artifact_type === 'llm_output');
  return (JSON.parse(artifact?.inline_content ?? '[]') as string[]).join('\n');
}

describe('LLM specialists with tools, over four worker processes', () => {
  it('call a function tool and an MCP server’s tool at once, their results reaching the answer, each recorded, traced and audited', async () => {
    SCRIPTS['look and echo'] = (results) => (results.length === 0 ? asks({ name: 'look_up', arguments: { word: 'tier' } }, { name: 'fake__echo', arguments: { text: 'from MCP' } }) : answers(results));
    const id = await enqueue('look and echo');
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
    expect(output(outcome)).toContain('tier: found');
    expect(output(outcome)).toContain('from MCP');
    const leaf = await leafOf(id);
    expect(leaf.tools.map((tool) => [tool.name, tool.end]).sort()).toEqual([
      ['look_up', 'ok'],
      ['mcp:fake/echo', 'ok'],
    ]);
    expect(leaf.calls).toHaveLength(2);
    const entries = (await trail(id)).filter((entry) => entry.kind === 'tool');
    expect(entries.map((entry) => entry.to).sort()).toEqual(['tool:look_up', 'tool:mcp:fake/echo']);
    expect(entries[0]?.data).toMatchObject({ caller: 'fleet:helper' });
    expect(typeof entries[0]?.data?.arguments).toBe('string');
    const inspected = await tierflow(['inspect', leaf.id], env());
    expect(inspected.stdout).toContain('tool calls (2)');
    // Each call an execute_tool span under the Fleet hop's, in the GenAI conventions.
    const hop = await waitFor(() => receiver.spans.find((span) => span.serviceName === 'tierflow-fleet' && span.attributes['tierflow.root_id'] === id && span.kind === 'CONSUMER'), {
      timeoutMs: 15_000,
      description: 'the Fleet hop’s span',
    });
    const toolSpans = await waitFor(
      () => {
        const found = receiver.spans.filter((span) => span.traceId === hop.traceId && span.name.startsWith('execute_tool '));
        return found.length === 2 ? found : undefined;
      },
      { timeoutMs: 15_000, description: 'two execute_tool spans' },
    );
    expect(toolSpans.map((span) => [span.name, span.parentSpanId === hop.spanId, span.attributes['gen_ai.operation.name'], span.attributes['gen_ai.tool.name']]).sort()).toEqual([
      ['execute_tool look_up', true, 'execute_tool', 'look_up'],
      ['execute_tool mcp:fake/echo', true, 'execute_tool', 'mcp:fake/echo'],
    ]);
    expect(toolSpans.map((span) => span.attributes['gen_ai.tool.call.id']).sort()).toEqual(['call_1', 'call_2']);

    // A strict replay answers the model and the tools from the recording: look_up does not run again.
    const { rootId } = await deployment.client.rerun(id, { replay: 'strict' });
    const replayed = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(replayed.payload.status).toBe('success');
    expect(output(replayed)).toBe(output(outcome));
    expect((await readFile(lookups, 'utf8')).split('\n').filter((word) => word === 'tier')).toHaveLength(1);
    expect((await leafOf(rootId)).tools.map((tool) => tool.replayed)).toEqual([true, true]);
  });

  it('refuses a tool outside the specialist’s boundaries, telling the model and the audit trail', async () => {
    SCRIPTS['forbidden'] = (results) => (results.length === 0 ? asks({ name: 'forbidden' }) : answers(results));
    const id = await enqueue('forbidden');
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(output(outcome)).toContain('not run (refused): fleet:helper may not hand work to tool:forbidden');
    const entry = (await trail(id)).find((item) => item.kind === 'tool');
    expect(entry).toMatchObject({ to: 'tool:forbidden', status: 'refused' });
    expect(entry?.detail).toContain('outside its collaboration boundaries');
  });

  it('makes at most maxToolCalls calls; a run’s max_tool_calls stops the whole run', async () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ name: 'look_up', arguments: { word: `w${i}` } }));
    SCRIPTS['many'] = (results) => (results.length === 0 ? asks(...five) : answers(results));
    const id = await enqueue('many');
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
    expect(output(outcome)).toContain('not run (refused): this specialist makes at most 4 tool calls');
    expect((await leafOf(id)).tools.filter((tool) => tool.end === 'ok')).toHaveLength(4);

    SCRIPTS['over budget'] = (results) => (results.length === 0 ? asks({ name: 'look_up', arguments: { word: 'a' } }, { name: 'look_up', arguments: { word: 'b' } }) : answers(results));
    const stopped = await enqueue('over budget', { budget: { max_tool_calls: 1 } });
    const over = await deployment.client.waitForResult(stopped, { timeoutMs: 30_000 });
    expect(over.payload).toMatchObject({ status: 'cancelled', error_type: 'budget_exceeded' });
    expect(over.payload.summary + (over.payload.error_detail ?? '')).toContain('max_tool_calls');
  });

  it('stops a slow MCP tool call when the run is cancelled, and the server hears of it', async () => {
    SCRIPTS['slow'] = (results) => (results.length === 0 ? asks({ name: 'fake__slow', arguments: { ms: 120_000 } }) : answers(results));
    const id = await enqueue('slow');
    const requestId = await waitFor(async () => /^slow (\S+)$/m.exec(await readFile(mcpLog, 'utf8').catch(() => ''))?.[1], { timeoutMs: 30_000, description: 'the slow call to reach the MCP server' });
    await deployment.client.cancel(id, { reason: 'no time' });
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('cancelled');
    await waitFor(async () => (await readFile(mcpLog, 'utf8')).includes(`cancelled ${requestId}`), { timeoutMs: 10_000, description: 'the MCP server to hear of the cancellation' });
  });

  it('stops a slow MCP tool call at its leaf’s deadline, and the server hears of it', async () => {
    SCRIPTS['too slow'] = (results) => (results.length === 0 ? asks({ name: 'fake__slow', arguments: { ms: 120_000 } }) : answers(results));
    const before = new Set((await readFile(mcpLog, 'utf8').catch(() => '')).split('\n'));
    const id = await enqueue('too slow', {}, { timeout_ms: 3_000 });
    const requestId = await waitFor(
      async () =>
        (await readFile(mcpLog, 'utf8'))
          .split('\n')
          .filter((line) => !before.has(line))
          .map((line) => /^slow (\S+)$/.exec(line)?.[1])
          .find(Boolean),
      {
        timeoutMs: 30_000,
        description: 'the slow call to reach the MCP server',
      },
    );
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status).not.toBe('success');
    expect((await leafOf(id)).tools).toMatchObject([{ name: 'mcp:fake/slow', end: 'cancelled' }]);
    await waitFor(async () => (await readFile(mcpLog, 'utf8')).includes(`cancelled ${requestId}`), { timeoutMs: 10_000, description: 'the MCP server to hear of the deadline' });
  });

  it('asks a person before a call marked approve: a denial is told to the model, edited arguments are what runs', async () => {
    for (const [objective, answer] of [
      ['approve deny', 'deny: not today'],
      ['approve edit', '{"text":"edited"}'],
    ] as const) {
      SCRIPTS[objective] = (results) => (results.length === 0 ? asks({ name: 'write_note', arguments: { text: 'draft' } }) : answers(results));
      const id = await enqueue(objective);
      const tree = await waitFor(
        async () => {
          const found = await deployment.client.tree(id);
          return found?.status === 'input_required' ? found : undefined;
        },
        { timeoutMs: 30_000, description: `${objective} to ask` },
      );
      const [question] = tree.questions ?? [];
      expect(question?.question).toContain('Approve the tool call write_note with arguments {"text":"draft"}?');
      await deployment.client.answer(id, answer);
      const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
      expect(outcome.payload.status).toBe('success');
      expect(output(outcome)).toContain(objective === 'approve deny' ? 'not run (denied): denied by a person: not today' : 'wrote {"text":"edited"}');
    }
  });

  it('answers the model with the error when its MCP server dies mid-call, and starts the server again for the next', async () => {
    SCRIPTS['crash'] = (results) => (results.length === 0 ? asks({ name: 'fake__crash' }) : answers(results));
    const crashed = await deployment.client.waitForResult(await enqueue('crash'), { timeoutMs: 30_000 });
    expect(crashed.payload.status).toBe('success');
    expect(output(crashed)).toMatch(/^error: MCP server "fake" stopped during the call to "crash"/);
    SCRIPTS['after crash'] = (results) => (results.length === 0 ? asks({ name: 'fake__echo', arguments: { text: 'back again' } }) : answers(results));
    const after = await deployment.client.waitForResult(await enqueue('after crash'), { timeoutMs: 30_000 });
    expect(output(after)).toContain('back again');
  });
});
