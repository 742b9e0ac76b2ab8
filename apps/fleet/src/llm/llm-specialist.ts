import type { ModelPrice } from '@tierflow/core';
import { TierflowError } from '@tierflow/protocol';
import { resolveModelLimit, type ModelLimitOptions } from '@tierflow/runtime/policy';
import type OpenAI from 'openai';
import { defineSpecialist, type Specialist, type SpecialistInput, type SpecialistResult } from '../specialist.js';
import type { Tool, ToolSource } from '../tools/tool.js';
import { chatCompletion, openAiClient, promptText, type CallResult, type CallSettings, type LlmEndpoint } from './llm-call.js';
import { checkContextSize } from './context-limit.js';
import { answerFormat, llmMessages, readAnswer } from './llm-prompt.js';
import { completeWithTools, DEFAULT_MAX_TOOL_CALLS } from './llm-tools.js';

/** Options of {@link llmSpecialist}. */
export interface LlmSpecialistOptions extends LlmEndpoint {
  /** The specialist's name, what `specialist_hint` routes by, e.g. `python-lora`. */
  readonly name: string;
  /** The model to call; the name when left out (a LoRA adapter served under its own name). */
  readonly model?: string;
  /** The confidence of an answer that does not give its own: 0.5 when left out. */
  readonly defaultConfidence?: number;
  readonly systemPrompt?: string;
  readonly maxConcurrent?: number;
  /**
   * What the model costs, in US dollars per million tokens in and out, as its provider prices
   * it: a call's cost is the endpoint's own token counts (its `usage` field) at these prices.
   * Without it, calls cost 0 and only tokens and calls are counted.
   */
  readonly price?: ModelPrice;
  /** Ask for the answer as a stream of chunks (`stream: true`), for servers and proxies that cut long silent requests. */
  readonly stream?: boolean;
  /**
   * The most tokens an answer may have, sent as `max_tokens`: what each call reserves for its
   * output against the run's budget. Left out, none is sent and each call reserves 1,024
   * (`DEFAULT_RESERVED_OUTPUT_TOKENS`), and a longer answer is counted when it comes.
   */
  readonly maxTokens?: number;
  /** The model's limits, shared by every Fleet and planner process through Redis (docs/operations.md#model-limits). */
  readonly limits?: ModelLimitOptions;
  /**
   * The tools the model may call (docs/extending.md#tools): tools themselves (`functionTool(…)`),
   * and names or patterns (`read_notes`, `mcp:files/*`) that `toolSource` resolves when the
   * specialist runs. With any, the specialist runs a loop: model → tool calls → results → model.
   */
  readonly tools?: readonly (Tool | string)[];
  /** Where the names and patterns of `tools` are found: the project's function tools and MCP servers. */
  readonly toolSource?: ToolSource;
  /** The most tool calls one run of the specialist makes ({@link DEFAULT_MAX_TOOL_CALLS} when left out). */
  readonly maxToolCalls?: number;
}

/**
 * A specialist that is a model behind an OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama,
 * LM Studio, hosted APIs), called through the official `openai` client. Cancellation and
 * timeouts abort the request at once. A busy endpoint (429, 503) is waited out when its
 * Retry-After fits before the deadline, and otherwise answered `throttled`; a model the endpoint
 * does not serve is `specialist_unavailable`; other failures are retried or not as their status says.
 *
 * ```ts
 * registry.register(llmSpecialist({ name: 'python-lora', baseURL: 'http://127.0.0.1:8000/v1' }));
 * ```
 */
export function llmSpecialist(options: LlmSpecialistOptions): Specialist {
  const model = options.model ?? options.name;
  const defaultConfidence = options.defaultConfidence ?? 0.5;
  if (!(defaultConfidence >= 0 && defaultConfidence <= 1)) {
    throw TierflowError.permanent(`defaultConfidence (${defaultConfidence}) must be from 0 to 1`, { code: 'invalid_specialist' });
  }
  const client = openAiClient(options);
  const price = options.price ?? null;
  if (price && !(isPrice(price.input_usd_per_mtok) && isPrice(price.output_usd_per_mtok))) {
    throw TierflowError.permanent('price: input_usd_per_mtok and output_usd_per_mtok must be finite numbers from 0 up', { code: 'invalid_specialist' });
  }
  if (options.maxTokens !== undefined && !(Number.isSafeInteger(options.maxTokens) && options.maxTokens > 0)) {
    throw TierflowError.permanent(`maxTokens (${options.maxTokens}) must be a whole number above 0`, { code: 'invalid_specialist' });
  }
  const modelLimit = resolveModelLimit(options.limits);
  const maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  if (!(Number.isSafeInteger(maxToolCalls) && maxToolCalls > 0)) {
    throw TierflowError.permanent(`maxToolCalls (${maxToolCalls}) must be a whole number above 0`, { code: 'invalid_specialist' });
  }
  const tools = options.tools ?? [];
  const patterns = tools.filter((tool): tool is string => typeof tool === 'string');
  if (patterns.length > 0 && !options.toolSource) {
    throw TierflowError.permanent(`tools ${patterns.join(', ')}: named without a toolSource to find them in`, { code: 'invalid_specialist' });
  }
  const config = {
    kind: 'llm',
    model,
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    // The tools a specialist may call are part of what it is: its hash changes with them.
    ...(tools.length === 0 ? {} : { tools: tools.map((tool) => (typeof tool === 'string' ? tool : tool.name)), maxToolCalls }),
  };
  const toolsOf = async (signal: AbortSignal): Promise<readonly Tool[]> => [
    ...tools.filter((tool): tool is Tool => typeof tool !== 'string'),
    ...(patterns.length > 0 && options.toolSource ? await options.toolSource.tools(patterns, signal) : []),
  ];
  return defineSpecialist({
    name: options.name,
    version: '1.0.0',
    config,
    ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
    // A repair pass tells the model what its answer got wrong (llm-prompt.ts).
    repairs: true,
    run: (input) => {
      const settings = { model, defaultConfidence, systemPrompt: options.systemPrompt, price, stream: options.stream ?? false, maxTokens: options.maxTokens, provider: options.provider, modelLimit };
      if (tools.length === 0) return complete(client, settings, input);
      return completeWithTools({ call: (request) => callOnce(client, settings, input, request), settings, input, tools: toolsOf, maxToolCalls, caller: `fleet:${options.name}` });
    },
  });
}

function isPrice(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * One request of the specialist's: held to the delegation's max_context_tokens (over it, none is
 * sent: context_too_large), reserved (a spent budget, or one it would pass, sends none:
 * budget_exceeded) and settled after; requests a busy endpoint refused count as calls but cost no tokens.
 */
function callOnce(client: OpenAI, settings: CallSettings, input: SpecialistInput, request: Parameters<typeof chatCompletion>[1]): Promise<CallResult> {
  checkContextSize(promptText(request), input.maxContextTokens, `specialist ${settings.model}`);
  const limits = {
    signal: input.signal,
    deadline: input.deadline,
    usage: input.usage,
    price: settings.price,
    calls: input.calls,
    purpose: 'specialist' as const,
    provider: settings.provider,
    modelLimit: settings.modelLimit,
  };
  return chatCompletion(client, request, limits, settings.stream);
}

async function complete(client: OpenAI, settings: CallSettings, input: SpecialistInput): Promise<SpecialistResult> {
  const { model, defaultConfidence } = settings;
  const request = {
    model,
    messages: llmMessages(input, settings.systemPrompt, await input.readContext()),
    response_format: answerFormat(input.expectedOutputSchema),
    ...(settings.maxTokens === undefined ? {} : { max_tokens: settings.maxTokens }),
  };
  const reply = await callOnce(client, settings, input, request);
  const answer = readAnswer(reply.content, defaultConfidence);
  return {
    summary: answer.summary,
    confidence: answer.confidence,
    artifacts: [{ artifact_type: 'llm_output', content: typeof answer.output === 'string' ? answer.output : JSON.stringify(answer.output) }],
    // An endpoint that reported no usage: the tokens are estimates, and the outcome says so.
    resources_used: { model: reply.model, usage: reply.usage, ...(reply.estimated ? { usage_estimated: true } : {}) },
  };
}
