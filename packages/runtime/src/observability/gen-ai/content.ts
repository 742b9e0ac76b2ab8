import type { Attributes } from '@opentelemetry/api';

/**
 * Prompts and answers in the GenAI conventions' form, for spans that capture content: each
 * message a role and parts (`{ type: 'text', content }`), the system's instructions on their own,
 * the answer with its finish reason. The attributes are JSON text, as the conventions allow for
 * backends without structured attributes. Pure.
 */

export interface TextPart {
  readonly type: 'text';
  readonly content: string;
}

/** A tool call the model asked for, and a tool's answer to one, as the conventions write them. */
export interface ToolCallPart {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
}

export interface ToolCallResponsePart {
  readonly type: 'tool_call_response';
  readonly id: string;
  readonly response: unknown;
}

export type MessagePart = TextPart | ToolCallPart | ToolCallResponsePart;

export interface InputMessage {
  readonly role: string;
  readonly parts: readonly MessagePart[];
}

export interface OutputMessage extends InputMessage {
  readonly finish_reason: string;
}

/** An OpenAI chat message's content as text parts: a string, or the text of each text part (images and audio are not captured). */
function partsOf(content: unknown): TextPart[] {
  if (typeof content === 'string') return [{ type: 'text', content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown) => {
    const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
    return type === 'text' && typeof text === 'string' ? [{ type: 'text' as const, content: text }] : [];
  });
}

/**
 * An OpenAI chat request's messages in the conventions' form: system and developer messages are
 * the instructions (Tierflow's come from the specialist's or planner's definition, not from the
 * conversation), the others the input, in order.
 */
export function inputMessagesOf(messages: readonly unknown[]): { readonly instructions: TextPart[]; readonly input: InputMessage[] } {
  const instructions: TextPart[] = [];
  const input: InputMessage[] = [];
  for (const message of messages) {
    const { role, content, tool_calls: calls, tool_call_id: answers } = (message ?? {}) as { role?: unknown; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown };
    if (typeof role !== 'string') continue;
    if (role === 'system' || role === 'developer') instructions.push(...partsOf(content));
    else if (role === 'tool' && typeof answers === 'string')
      input.push({ role, parts: [{ type: 'tool_call_response', id: answers, response: typeof content === 'string' ? content : partsOf(content) }] });
    else input.push({ role, parts: [...partsOf(content), ...toolCallParts(calls)] });
  }
  return { instructions, input };
}

/** The tool calls of a message, from the API's `{ id, function: { name, arguments } }` or a recorded answer's `{ id, name, arguments }`; arguments parsed when they are JSON. */
function toolCallParts(calls: unknown): ToolCallPart[] {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call: unknown) => {
    const { id, function: fn } = (call ?? {}) as { id?: unknown; function?: unknown };
    const { name, arguments: args } = (fn ?? call ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof id !== 'string' || typeof name !== 'string') return [];
    return [{ type: 'tool_call' as const, id, name, arguments: parsedArguments(args) }];
  });
}

function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? null;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** The request's content attributes: `gen_ai.input.messages`, and `gen_ai.system_instructions` when it has any. */
export function inputContentAttributes(messages: readonly unknown[]): Attributes {
  const { instructions, input } = inputMessagesOf(messages);
  return {
    'gen_ai.input.messages': JSON.stringify(input),
    ...(instructions.length > 0 ? { 'gen_ai.system_instructions': JSON.stringify(instructions) } : {}),
  };
}

/** The answer's content attribute: one assistant message, its text and the tools it asks to call, with its finish reason (`stop` when the server gave none). */
export function outputContentAttributes(content: string, finishReason: string | null, toolCalls: readonly unknown[] = []): Attributes {
  const parts: MessagePart[] = [...(content === '' && toolCalls.length > 0 ? [] : [{ type: 'text' as const, content }]), ...toolCallParts(toolCalls)];
  const output: OutputMessage[] = [{ role: 'assistant', parts, finish_reason: finishReason ?? 'stop' }];
  return { 'gen_ai.output.messages': JSON.stringify(output) };
}
