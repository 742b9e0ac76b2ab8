import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import type { SpecialistInput } from '../specialist.js';

/** What a model is asked to answer with: a summary, its own confidence, and the work itself. */
export interface LlmAnswer {
  readonly summary: string;
  readonly confidence: number;
  readonly output: unknown;
}

const DEFAULT_SYSTEM_PROMPT =
  'You are a specialist in a team of agents. Do the task you are given. Answer with one JSON object: ' +
  '"summary" (one sentence on what you did), "confidence" (a number from 0 to 1: how sure you are the work is right) ' +
  'and "output" (the work itself).';

/** How much of one shared-context value goes into a prompt: enough to inform, not to crowd out the task. */
export const CONTEXT_VALUE_CHARS = 4_000;

/**
 * The chat messages for one task: the system prompt, then the objective, constraints, task data
 * and the shared context its Beads references hold (each value cut at {@link CONTEXT_VALUE_CHARS}).
 */
export function llmMessages(input: SpecialistInput, systemPrompt: string = DEFAULT_SYSTEM_PROMPT, context: Readonly<Record<string, unknown>> = {}): ChatCompletionMessageParam[] {
  const parts = [`Objective: ${input.objective}`, `Task type: ${input.taskType}`];
  if (input.constraints.length > 0) parts.push(`Constraints:\n${input.constraints.map((constraint) => `- ${constraint}`).join('\n')}`);
  if (Object.keys(input.taskData).length > 0) parts.push(`Task data (JSON):\n${JSON.stringify(input.taskData)}`);
  const shared = Object.entries(context).filter(([, value]) => value !== null);
  if (shared.length > 0) parts.push(`Shared context:\n${shared.map(([ref, value]) => `${ref}: ${cut(JSON.stringify(value))}`).join('\n')}`);
  // A repair pass (docs/protocol.md#error-policies): what the last answer got wrong.
  if (input.repair)
    parts.push(`Your previous answer did not match the required output schema:\n${input.repair.mismatches.map((mismatch) => `- ${mismatch}`).join('\n')}\nAnswer again so that it matches.`);
  return [
    { role: 'system', content: systemPrompt },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/** Structured output: the answer's shape, with `output` held to the delegation's expected-output schema when it has one. */
export function answerFormat(expectedOutputSchema: Readonly<Record<string, unknown>> | null): ResponseFormatJSONSchema {
  return {
    type: 'json_schema',
    json_schema: {
      name: 'specialist_answer',
      schema: {
        type: 'object',
        properties: { summary: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 }, output: expectedOutputSchema ?? {} },
        required: ['summary', 'confidence', 'output'],
      },
    },
  };
}

/**
 * The model's answer. A reply that is not the JSON asked for is still work: it becomes the output,
 * its first line the summary, and `defaultConfidence` the confidence. A confidence outside 0 to 1
 * is not the model's to give, so the default stands in for it too.
 */
export function readAnswer(text: string | null, defaultConfidence: number): LlmAnswer {
  const content = text ?? '';
  const parsed = parseObject(content);
  if (parsed === null || typeof parsed['summary'] !== 'string' || !('output' in parsed)) {
    return { summary: firstLine(content), confidence: defaultConfidence, output: content };
  }
  const confidence = parsed['confidence'];
  const valid = typeof confidence === 'number' && confidence >= 0 && confidence <= 1;
  return { summary: parsed['summary'] || firstLine(content), confidence: valid ? confidence : defaultConfidence, output: parsed['output'] };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function cut(text: string): string {
  return text.length > CONTEXT_VALUE_CHARS ? `${text.slice(0, CONTEXT_VALUE_CHARS)}…` : text;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line === '' ? '(the model answered nothing)' : line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
