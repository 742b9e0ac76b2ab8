import type { NodeToolCalls, ToolCall } from '@tierflow/runtime/policy';
import { UNRECORDED_CALLS } from '@tierflow/runtime/policy';
import { completion, FakeOpenAiServer, toolCallsCompletion, type FakeToolCall } from '@tierflow/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { specialistInput } from '../test-input.js';
import { functionTool } from '../tools/function-tool.js';
import { approvalQuestion } from '../tools/tool-approval.js';
import type { Tool } from '../tools/tool.js';
import { llmSpecialist } from './llm-specialist.js';

// The real `openai` client against an OpenAI-compatible server this test runs, scripted to ask for tool calls.
let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start(['helper']);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.replies.length = 0;
});

const ANSWER = JSON.stringify({ summary: 'looked it up', confidence: 0.9, output: { found: true } });
const asks = (...calls: FakeToolCall[]) => server.replies.push({ body: toolCallsCompletion('helper', calls) });
const answers = (content = ANSWER) => server.replies.push({ body: completion('helper', content) });

interface Body {
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: { function: { name: string } }[];
  tool_choice?: string;
}
const body = (index: number) => server.requests.filter((request) => request.path === '/v1/chat/completions')[index]!.body as Body;
const toolMessages = (index: number) => body(index).messages.filter((message) => message.role === 'tool');

const lookUp = functionTool({ name: 'look_up', description: 'The meaning of a word', parameters: z.object({ word: z.string() }), run: ({ word }: { word: string }) => `${word}: a meaning` });

/** Tool hooks that remember what they were asked and recorded, refusing the tools named. */
function hooks(refuse: readonly string[] = []) {
  const recorded: ToolCall[] = [];
  const admitted: string[] = [];
  const tools: NodeToolCalls = {
    admit: (caller, name) => {
      admitted.push(`${caller} → ${name}`);
      return Promise.resolve(refuse.includes(name) ? { ok: false, reason: `${caller} may not hand work to tool:${name}` } : { ok: true });
    },
    observe: () => ({ ended: () => undefined }),
    record: (call) => void recorded.push(call),
  };
  return { recorded, admitted, calls: { ...UNRECORDED_CALLS, tools } };
}

const specialist = (tools: readonly (Tool | string)[], more: { maxToolCalls?: number; stream?: boolean } = {}) =>
  llmSpecialist({ name: 'helper', baseURL: server.baseURL, apiKey: 'test', tools, ...more });

describe('an LLM specialist with tools', () => {
  it('offers its tools, runs the call the model asks for, hands back the result, and answers with the model’s answer', async () => {
    asks({ name: 'look_up', arguments: { word: 'tier' } });
    answers();
    const { recorded, admitted, calls } = hooks();
    const result = await specialist([lookUp]).run(specialistInput({ calls }));
    expect(result).toMatchObject({ summary: 'looked it up', confidence: 0.9, resources_used: { tool_calls: 1, usage: { llm_calls: 2, tokens_in: 24, tokens_out: 10 } } });
    expect(body(0).tools?.map((tool) => tool.function.name)).toEqual(['look_up']);
    expect(body(0).tool_choice).toBe('auto');
    expect(toolMessages(1)).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: 'tier: a meaning' }]);
    expect(body(1).messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'look_up' } }] });
    expect(admitted).toEqual(['fleet:helper → look_up']);
    expect(recorded).toEqual([expect.objectContaining({ name: 'look_up', call_id: 'call_1', caller: 'fleet:helper', arguments: { word: 'tier' }, result: 'tier: a meaning', end: 'ok', error: null })]);
  });

  it('runs the calls of one answer at once', async () => {
    // Each tool waits for the other to have started: they finish only if they run together.
    let started = 0;
    let bothStarted = (): void => undefined;
    const both = new Promise<void>((resolve) => (bothStarted = resolve));
    const meeting = (name: string) =>
      functionTool({
        name,
        description: name,
        run: async () => {
          if (++started === 2) bothStarted();
          await both;
          return `${name} done`;
        },
      });
    asks({ name: 'left' }, { name: 'right' });
    answers();
    await specialist([meeting('left'), meeting('right')]).run(specialistInput());
    expect(toolMessages(1).map((message) => message.content)).toEqual(['left done', 'right done']);
  });

  it('makes at most maxToolCalls calls, then asks the model to answer without tools; a model that still asks answers partial', async () => {
    asks({ name: 'look_up', arguments: { word: 'a' } }, { name: 'look_up', arguments: { word: 'b' } }, { name: 'look_up', arguments: { word: 'c' } });
    answers();
    const { recorded, calls } = hooks();
    const result = await specialist([lookUp], { maxToolCalls: 2 }).run(specialistInput({ calls }));
    expect(result).toMatchObject({ summary: 'looked it up', resources_used: { tool_calls: 2 } });
    expect(toolMessages(1).map((message) => message.content)).toEqual(['a: a meaning', 'b: a meaning', 'not run (refused): this specialist makes at most 2 tool calls']);
    expect(body(1).tool_choice).toBe('none');
    // Calls run together, so they are recorded as they end, in no set order.
    expect(recorded.map((call) => call.end).sort()).toEqual(['ok', 'ok', 'refused']);

    server.requests.length = 0;
    asks({ name: 'look_up', arguments: { word: 'a' } });
    asks({ name: 'look_up', arguments: { word: 'b' } });
    const stubborn = await specialist([lookUp], { maxToolCalls: 1 }).run(specialistInput());
    expect(stubborn).toMatchObject({ status: 'partial', error_type: 'max_tool_calls', resources_used: { tool_calls: 1 } });
  });

  it('tells the model of a call its boundaries refuse, an unknown tool, arguments that are not JSON or not what the tool takes, and a tool that throws', async () => {
    const failing = functionTool({ name: 'broken', description: 'throws', run: () => Promise.reject(new Error('disk on fire')) });
    asks({ name: 'look_up', arguments: { word: 'x' } }, { name: 'nope' }, { name: 'broken', arguments: '{oops' }, { name: 'look_up', arguments: { word: 3 } }, { name: 'broken' });
    answers();
    const { recorded, calls } = hooks(['look_up']);
    await specialist([lookUp, failing]).run(specialistInput({ calls }));
    expect(toolMessages(1).map((message) => message.content)).toEqual([
      'not run (refused): fleet:helper may not hand work to tool:look_up',
      'not run (refused): there is no tool nope',
      expect.stringMatching(/^not run \(refused\): the arguments are not JSON/),
      'not run (refused): fleet:helper may not hand work to tool:look_up',
      'error: disk on fire',
    ]);
    expect(recorded.map((call) => `${call.name} ${call.end}`).sort()).toEqual(['broken error', 'broken refused', 'look_up refused', 'look_up refused', 'nope refused']);
  });

  it('hands back what a zod schema finds wrong with the arguments', async () => {
    asks({ name: 'look_up', arguments: { word: 3 } });
    answers();
    await specialist([lookUp]).run(specialistInput());
    expect(toolMessages(1)[0]?.content).toMatch(/^invalid arguments: word: /);
  });

  it('asks a person before a call marked approve, and follows the answer: deny tells the model, edited arguments run', async () => {
    const ran: unknown[] = [];
    const write = functionTool({ name: 'write_note', description: 'Writes a note', approve: true, run: (args: unknown) => (ran.push(args), 'written') });
    asks({ name: 'write_note', arguments: { text: 'hi' } });
    const first = await specialist([write]).run(specialistInput());
    const question = approvalQuestion('write_note', { text: 'hi' });
    expect(first).toMatchObject({ status: 'needs_clarification', error_type: 'ambiguous_request', error_detail: question });
    expect(ran).toEqual([]);

    const clarified = (answer: string) => ({ taskData: { clarifications: [{ question_id: 'q1', question, answer }] } });
    asks({ name: 'write_note', arguments: { text: 'hi' } });
    answers();
    const { recorded, calls } = hooks();
    await specialist([write]).run(specialistInput({ ...clarified('deny: not today'), calls }));
    expect(toolMessages(2)).toEqual([expect.objectContaining({ content: 'not run (denied): denied by a person: not today' })]);
    expect(recorded.map((call) => call.end)).toEqual(['denied']);
    // The approvals are the loop's: the prompt the model is shown holds no trace of them.
    expect(JSON.stringify(body(1).messages)).not.toContain('Approve the tool call');

    asks({ name: 'write_note', arguments: { text: 'hi' } });
    answers();
    await specialist([write]).run(specialistInput(clarified('{"text":"hello"}')));
    expect(ran).toEqual([{ text: 'hello' }]);
  });

  it('stops a running call and the loop when the run is cancelled', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | null = null;
    const slow: Tool = {
      name: 'slow',
      description: 'waits',
      parameters: { type: 'object' },
      run: (_args, { signal }) => {
        seen = signal;
        const stopped = new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));
        controller.abort(new Error('cancelled by a person'));
        return stopped;
      },
    };
    asks({ name: 'slow' });
    const { recorded, calls } = hooks();
    await expect(specialist([slow]).run(specialistInput({ signal: controller.signal, calls }))).rejects.toThrow('cancelled by a person');
    expect(seen!.aborted).toBe(true);
    expect(recorded.map((call) => call.end)).toEqual(['cancelled']);
  });

  it('reads tool calls from a streamed answer', async () => {
    asks({ name: 'look_up', arguments: { word: 'stream' } });
    answers();
    await specialist([lookUp], { stream: true }).run(specialistInput());
    expect(toolMessages(1)).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: 'stream: a meaning' }]);
  });

  it('refuses tools named without a source to find them in, and a maxToolCalls that is not a count', () => {
    expect(() => specialist(['mcp:files/*'])).toThrow(/without a toolSource/);
    expect(() => specialist([lookUp], { maxToolCalls: 0 })).toThrow(/maxToolCalls/);
  });
});
