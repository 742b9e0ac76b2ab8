import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { SpecialistInput, SpecialistResult } from '../specialist.js';
import { isApprovalQuestion } from '../tools/tool-approval.js';
import { runToolLoop } from '../tools/tool-loop.js';
import type { Tool } from '../tools/tool.js';
import type { CallResult, CallSettings } from './llm-call.js';
import { answerFormat, llmMessages, readAnswer } from './llm-prompt.js';

/** The most tool calls one run of an LLM specialist makes when it sets none. */
export const DEFAULT_MAX_TOOL_CALLS = 10;

/** What an LLM specialist with tools runs with. */
export interface ToolUse {
  readonly call: (request: ChatCompletionCreateParamsNonStreaming) => Promise<CallResult>;
  readonly settings: CallSettings;
  readonly input: SpecialistInput;
  /** Its tools, found when it runs (an MCP server's are listed then). */
  readonly tools: (signal: AbortSignal) => Promise<readonly Tool[]>;
  readonly maxToolCalls: number;
  /** `fleet:<specialist>`. */
  readonly caller: string;
}

/**
 * An LLM specialist's run with tools (docs/extending.md#tools): the tool loop, and its end as the
 * specialist's result: the model's answer; `needs_clarification` while a call waits for a
 * person's approval (its question carried up the question path); `partial` when the model still
 * asked for tools after the last one it may call.
 */
export async function completeWithTools(use: ToolUse): Promise<SpecialistResult> {
  const { settings, input } = use;
  const tools = await use.tools(input.signal);
  // Approvals travel in the task's clarifications; they are the loop's, not part of the task the model is shown.
  const shown = { ...input, taskData: withoutApprovals(input.taskData) };
  const messages = llmMessages(shown, settings.systemPrompt, await input.readContext());
  const end = await runToolLoop(messages, {
    tools,
    maxToolCalls: use.maxToolCalls,
    caller: use.caller,
    input,
    complete: (history, offered, choice) =>
      use.call({
        model: settings.model,
        messages: history,
        ...(offered.length > 0 ? { tools: offered, tool_choice: choice } : {}),
        response_format: answerFormat(input.expectedOutputSchema),
        ...(settings.maxTokens === undefined ? {} : { max_tokens: settings.maxTokens }),
      }),
  });
  const model = end.models.at(-1) ?? settings.model;
  const resources_used = { model, usage: end.usage, tool_calls: end.toolCalls, ...(end.estimated ? { usage_estimated: true } : {}) };
  switch (end.kind) {
    case 'asks':
      return {
        status: 'needs_clarification',
        summary: 'a tool call waits for a person’s approval',
        confidence: settings.defaultConfidence,
        error_type: 'ambiguous_request',
        error_detail: end.question,
        resources_used,
      };
    case 'exhausted':
    case 'answered': {
      const answer = readAnswer(end.answer.content, settings.defaultConfidence);
      const output = typeof answer.output === 'string' ? answer.output : JSON.stringify(answer.output);
      return {
        ...(end.kind === 'exhausted'
          ? { status: 'partial', error_type: 'max_tool_calls', error_detail: `the model still asked for tools after the ${use.maxToolCalls} it may call`, recoverable: false }
          : {}),
        summary: answer.summary,
        confidence: answer.confidence,
        artifacts: [{ artifact_type: 'llm_output', content: output }],
        resources_used,
      };
    }
  }
}

function withoutApprovals(taskData: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const clarifications = taskData['clarifications'];
  if (!Array.isArray(clarifications)) return taskData;
  const rest = clarifications.filter((item: unknown) => !(typeof item === 'object' && item !== null && isApprovalQuestion(String((item as { question?: unknown }).question))));
  if (rest.length === clarifications.length) return taskData;
  const { clarifications: _dropped, ...others } = taskData;
  return rest.length === 0 ? others : { ...others, clarifications: rest };
}
