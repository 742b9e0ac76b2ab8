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

export interface InputMessage {
  readonly role: string;
  readonly parts: readonly TextPart[];
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
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (typeof role !== 'string') continue;
    if (role === 'system' || role === 'developer') instructions.push(...partsOf(content));
    else input.push({ role, parts: partsOf(content) });
  }
  return { instructions, input };
}

/** The request's content attributes: `gen_ai.input.messages`, and `gen_ai.system_instructions` when it has any. */
export function inputContentAttributes(messages: readonly unknown[]): Attributes {
  const { instructions, input } = inputMessagesOf(messages);
  return {
    'gen_ai.input.messages': JSON.stringify(input),
    ...(instructions.length > 0 ? { 'gen_ai.system_instructions': JSON.stringify(instructions) } : {}),
  };
}

/** The answer's content attribute: one assistant message with its finish reason (`stop` when the server gave none). */
export function outputContentAttributes(content: string, finishReason: string | null): Attributes {
  const output: OutputMessage[] = [{ role: 'assistant', parts: [{ type: 'text', content }], finish_reason: finishReason ?? 'stop' }];
  return { 'gen_ai.output.messages': JSON.stringify(output) };
}
