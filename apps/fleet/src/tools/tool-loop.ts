import { addUsage, ZERO_USAGE } from '@tierflow/core';
import type { Usage } from '@tierflow/protocol';
import type { ModelToolCall, NodeToolCalls, ToolCallEnd } from '@tierflow/runtime/policy';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { abortError } from '../abortable-delay.js';
import type { CallResult } from '../llm/llm-call.js';
import type { SpecialistInput } from '../specialist.js';
import { approvalOf } from './tool-approval.js';
import { functionNames } from './tool-names.js';
import type { Tool } from './tool.js';

/** What a specialist's tool loop runs with. */
export interface ToolLoopOptions {
  readonly tools: readonly Tool[];
  /** The most tool calls the loop makes; past it the model is asked to answer without tools. */
  readonly maxToolCalls: number;
  /** Who calls, as boundaries name it: `fleet:<specialist>`. */
  readonly caller: string;
  readonly input: Pick<SpecialistInput, 'signal' | 'taskData' | 'calls'>;
  /** One model call with `messages` and the tools offered; `none` once the loop may make no more tool calls. */
  complete(messages: ChatCompletionMessageParam[], tools: ChatCompletionTool[], choice: 'auto' | 'none'): Promise<CallResult>;
}

/** How the loop ended: the model's answer, a call that waits for a person's approval, or a model that still asked for tools at the limit. */
export type ToolLoopEnd =
  { readonly kind: 'answered'; readonly answer: CallResult } | { readonly kind: 'asks'; readonly question: string } | { readonly kind: 'exhausted'; readonly answer: CallResult };

/** The loop's end, with what its model calls were charged and how many tool calls it made. */
export type ToolLoopResult = ToolLoopEnd & { readonly usage: Usage; readonly estimated: boolean; readonly toolCalls: number; readonly models: readonly string[] };

/**
 * Model → tool calls (those of one answer run together) → results → model, until the model
 * answers, a call waits for a person's approval, or `maxToolCalls` calls were made. Each call is
 * admitted first (boundaries, the run's `max_tool_calls`), traced and recorded; a refused,
 * denied or failed call is still answered to the model, with why. Cancellation aborts the calls
 * running and ends the loop with the signal's reason.
 */
export async function runToolLoop(messages: ChatCompletionMessageParam[], options: ToolLoopOptions): Promise<ToolLoopResult> {
  const byName = functionNames(options.tools);
  const offered: ChatCompletionTool[] = [...byName].map(([name, tool]) => ({ type: 'function', function: { name, description: tool.description, parameters: offeredSchema(tool.parameters) } }));
  let usage = ZERO_USAGE;
  let estimated = false;
  let made = 0;
  const models: string[] = [];
  const history = [...messages];
  for (;;) {
    const answer = await options.complete(history, offered, made < options.maxToolCalls ? 'auto' : 'none');
    usage = addUsage(usage, answer.usage);
    estimated ||= answer.estimated;
    models.push(answer.model);
    const totals = { usage, estimated, toolCalls: made, models };
    if (answer.toolCalls.length === 0) return { kind: 'answered', answer, ...totals };
    if (made >= options.maxToolCalls) return { kind: 'exhausted', answer, ...totals };
    const calls = answer.toolCalls.map((call) => planned(call, byName, options.input.taskData));
    const asking = calls.find((call) => call.approval?.kind === 'pending');
    if (asking?.approval?.kind === 'pending') return { kind: 'asks', question: asking.approval.question, ...totals };
    const room = options.maxToolCalls - made;
    const results = await Promise.all(
      calls.map((call, index) => (index < room ? runCall(call, options) : Promise.resolve(notRun(call, options, `this specialist makes at most ${options.maxToolCalls} tool calls`)))),
    );
    made += Math.min(room, calls.length);
    history.push({
      role: 'assistant',
      content: answer.content || null,
      tool_calls: answer.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
    });
    for (const [index, call] of answer.toolCalls.entries()) history.push({ role: 'tool', tool_call_id: call.id, content: results[index]! });
  }
}

/** A tool's schema as a model's API takes it: without `$schema` (some providers refuse the keyword), an object taking anything when it is not one. */
function offeredSchema(parameters: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = parameters;
  return schema.type === undefined ? { type: 'object', ...schema } : schema;
}

/** A call the model asked for, read: its tool (null: none of that name), its arguments (or why they do not parse), and what a person said of it. */
interface PlannedCall {
  readonly call: ModelToolCall;
  readonly tool: Tool | null;
  readonly args: Readonly<Record<string, unknown>> | string;
  readonly approval: ReturnType<typeof approvalOf> | null;
}

function planned(call: ModelToolCall, byName: ReadonlyMap<string, Tool>, taskData: Readonly<Record<string, unknown>>): PlannedCall {
  const tool = byName.get(call.name) ?? null;
  const args = argumentsOf(call.arguments);
  const approval = tool?.approve && typeof args !== 'string' ? approvalOf(tool.name, args, taskData['clarifications']) : null;
  return { call, tool, args, approval };
}

function argumentsOf(text: string): Readonly<Record<string, unknown>> | string {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'the arguments are not a JSON object';
  } catch (error) {
    return `the arguments are not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Runs one call, or answers why not; records it however it ends. The result is what the model is handed. */
async function runCall(planned: PlannedCall, options: ToolLoopOptions): Promise<string> {
  const { call, tool } = planned;
  if (tool === null) return notRun(planned, options, `there is no tool ${call.name}`);
  if (typeof planned.args === 'string') return notRun(planned, options, planned.args);
  if (planned.approval?.kind === 'deny') return ended(planned, options, { end: 'denied', error: `denied by a person${planned.approval.reason ? `: ${planned.approval.reason}` : ''}` });
  const run = { ...planned, args: planned.approval?.kind === 'approve' ? planned.approval.args : planned.args };
  const hooks = options.input.calls.tools;
  // A replayed rerun hands the model what the call gave when recorded: the tool does not run again.
  const recorded = (await hooks?.replay?.(tool.name, run.args)) ?? null;
  if (recorded !== null) return ended(run, options, { end: recorded.isError ? 'error' : 'ok', error: recorded.isError ? recorded.content : null, content: recorded.content, replayed: true });
  const admission = hooks ? await hooks.admit(options.caller, tool.name) : { ok: true as const };
  if (!admission.ok) return ended(planned, options, { end: 'refused', error: admission.reason });
  const { signal } = options.input;
  const startedAt = Date.now();
  const observed = hooks?.observe({ name: tool.name, callId: call.id, type: tool.name.startsWith('mcp:') ? 'extension' : 'function' });
  try {
    const result = await tool.run(run.args, { signal, callId: call.id });
    if (signal.aborted) throw abortError(signal);
    const end: ToolCallEnd = result.isError ? 'error' : 'ok';
    return ended(run, options, { startedAt, end, error: end === 'ok' ? null : result.content, content: result.content, observed });
  } catch (error) {
    if (signal.aborted) {
      ended(run, options, { startedAt, end: 'cancelled', error: 'the run was cancelled or ran out of time', observed });
      throw abortError(signal);
    }
    return ended(run, options, { startedAt, end: 'error', error: error instanceof Error ? error.message : String(error), observed });
  }
}

function notRun(planned: PlannedCall, options: ToolLoopOptions, why: string): string {
  return ended(planned, options, { end: 'refused', error: why });
}

/** How a call ended, for its record and its span. */
interface CallEnd {
  readonly end: ToolCallEnd;
  /** Why it failed, was refused or denied; null when it answered. */
  readonly error: string | null;
  /** What the tool gave; left out, the model is told why there is nothing. */
  readonly content?: string;
  /** When it started; now (it did not run) when left out. */
  readonly startedAt?: number;
  readonly observed?: ReturnType<NodeToolCalls['observe']> | undefined;
  readonly replayed?: boolean;
}

/** Records a call's end, tells its span, and answers what the model is handed. */
function ended(planned: PlannedCall, options: ToolLoopOptions, how: CallEnd): string {
  const { end, error } = how;
  const result = how.content ?? `${end === 'error' ? 'error' : `not run (${end})`}: ${error ?? ''}`;
  const startedAt = how.startedAt ?? Date.now();
  how.observed?.ended(end, error, Buffer.byteLength(result));
  options.input.calls.tools?.record({
    name: planned.tool?.name ?? planned.call.name,
    call_id: planned.call.id,
    caller: options.caller,
    arguments: typeof planned.args === 'string' ? planned.call.arguments : planned.args,
    result,
    end,
    error,
    started_at: startedAt,
    latency_ms: Date.now() - startedAt,
    ...(how.replayed ? { replayed: true } : {}),
  });
  return result;
}
