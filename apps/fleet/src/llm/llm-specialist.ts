import type { ModelPrice } from '@tierflow/core';
import { TierflowError } from '@tierflow/protocol';
import { resolveModelLimit, type ModelLimit, type ModelLimitOptions } from '@tierflow/runtime/policy';
import type OpenAI from 'openai';
import { defineSpecialist, type Specialist, type SpecialistInput, type SpecialistResult } from '../specialist.js';
import { chatCompletion, openAiClient, type LlmEndpoint } from './llm-call.js';
import { answerFormat, llmMessages, readAnswer } from './llm-prompt.js';

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
  const config = {
    kind: 'llm',
    model,
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  };
  return defineSpecialist({
    name: options.name,
    version: '1.0.0',
    config,
    ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
    // A repair pass tells the model what its answer got wrong (llm-prompt.ts).
    repairs: true,
    run: (input) =>
      complete(
        client,
        { model, defaultConfidence, systemPrompt: options.systemPrompt, price, stream: options.stream ?? false, maxTokens: options.maxTokens, provider: options.provider, modelLimit },
        input,
      ),
  });
}

function isPrice(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

interface CallSettings {
  readonly model: string;
  readonly defaultConfidence: number;
  readonly systemPrompt: string | undefined;
  readonly price: ModelPrice | null;
  readonly stream: boolean;
  readonly maxTokens: number | undefined;
  readonly provider: string | undefined;
  readonly modelLimit: ModelLimit;
}

async function complete(client: OpenAI, settings: CallSettings, input: SpecialistInput): Promise<SpecialistResult> {
  const { model, defaultConfidence, price } = settings;
  const request = {
    model,
    messages: llmMessages(input, settings.systemPrompt, await input.readContext()),
    response_format: answerFormat(input.expectedOutputSchema),
    ...(settings.maxTokens === undefined ? {} : { max_tokens: settings.maxTokens }),
  };
  // Each request is reserved first (a spent budget, or one this call would pass, sends none:
  // budget_exceeded) and settled after; requests a busy endpoint refused count as calls but cost no tokens.
  const reply = await chatCompletion(
    client,
    request,
    { signal: input.signal, deadline: input.deadline, usage: input.usage, price, calls: input.calls, purpose: 'specialist', provider: settings.provider, modelLimit: settings.modelLimit },
    settings.stream,
  );
  const answer = readAnswer(reply.content, defaultConfidence);
  return {
    summary: answer.summary,
    confidence: answer.confidence,
    artifacts: [{ artifact_type: 'llm_output', content: typeof answer.output === 'string' ? answer.output : JSON.stringify(answer.output) }],
    // An endpoint that reported no usage: the tokens are estimates, and the outcome says so.
    resources_used: { model: reply.model, usage: reply.usage, ...(reply.estimated ? { usage_estimated: true } : {}) },
  };
}
