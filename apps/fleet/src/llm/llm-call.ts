import { parseRetryAfter } from '@tierflow/core';
import { TierflowError } from '@tierflow/protocol';
import { readTierflowVars } from '@tierflow/runtime';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { abortableDelay, abortError } from '../abortable-delay.js';
import { SpecialistThrottledError, SpecialistUnavailableError } from '../specialist.js';
import { classifyLlmFailure } from './llm-failure.js';

/** Where a model is served: an OpenAI-compatible endpoint and its key. */
export interface LlmEndpoint {
  /** e.g. `http://127.0.0.1:8000/v1`; OPENAI_BASE_URL when left out. */
  readonly baseURL?: string;
  /** OPENAI_API_KEY when left out; a local server that checks none takes any. */
  readonly apiKey?: string;
}

/** An `openai` client for the endpoint, with the client's own retries off: the caller knows the deadline, the client does not. */
export function openAiClient(endpoint: LlmEndpoint): OpenAI {
  const env = readTierflowVars(process.env, ['OPENAI_BASE_URL', 'OPENAI_API_KEY']);
  return new OpenAI({ baseURL: endpoint.baseURL ?? env.OPENAI_BASE_URL ?? null, apiKey: endpoint.apiKey ?? env.OPENAI_API_KEY ?? 'none', maxRetries: 0 });
}

/** How long a call may take and what stops it. */
export interface CallLimits {
  readonly signal: AbortSignal;
  /** When the answer must be in (ms since the epoch), or null. */
  readonly deadline: number | null;
  /** Before each request is sent: throws to send none (a run's spent budget: `usage.reserve`). */
  readonly beforeEachTry?: () => Promise<void>;
}

/** What a call came back with, streamed or not, and how many requests it took (a busy endpoint's refusals included). */
export interface CallResult {
  readonly content: string;
  /** The model that answered, as the endpoint names it. */
  readonly model: string;
  /** The endpoint's token counts; zero when it reported none. */
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly tries: number;
}

/**
 * One chat completion. A busy endpoint (429, 503) is waited out when its Retry-After fits before
 * the deadline; otherwise the failure becomes the error its status calls for: throttled,
 * unavailable (the model is not served), retryable or permanent.
 *
 * @throws SpecialistThrottledError, SpecialistUnavailableError, TierflowError (`llm_call_failed`
 *   retryable, `llm_call_refused` permanent), or the abort reason when `signal` fires.
 */
export async function chatCompletion(client: OpenAI, request: ChatCompletionCreateParamsNonStreaming, limits: CallLimits, stream = false): Promise<CallResult> {
  for (let waits = 0; ; waits++) {
    await limits.beforeEachTry?.();
    try {
      const answer = stream ? await streamed(client, request, limits.signal) : whole(await client.chat.completions.create(request, { signal: limits.signal }));
      return { ...answer, tries: waits + 1 };
    } catch (error) {
      if (limits.signal.aborted) throw abortError(limits.signal);
      if (!(error instanceof OpenAI.APIError)) throw error;
      const now = Date.now();
      // The client types these loosely: a connection error has neither.
      const headers = error.headers as Headers | undefined;
      const status = error.status as number | undefined;
      const retryAfterMs = parseRetryAfter(headers?.get('retry-after') ?? undefined, now);
      const failure = classifyLlmFailure(status, retryAfterMs, limits.deadline === null ? null : limits.deadline - now, waits);
      const detail = `${request.model} at ${client.baseURL}: ${error.message}`;
      switch (failure.kind) {
        case 'wait':
          await abortableDelay(failure.ms, limits.signal);
          continue;
        case 'throttled':
          throw new SpecialistThrottledError(detail, { cause: error });
        case 'unavailable':
          throw new SpecialistUnavailableError(detail, { cause: error });
        case 'retryable':
          throw TierflowError.retryable(detail, { code: 'llm_call_failed', cause: error });
        case 'permanent':
          throw TierflowError.permanent(detail, { code: 'llm_call_refused', cause: error });
      }
    }
  }
}

type Answer = Omit<CallResult, 'tries'>;

function whole(completion: ChatCompletion): Answer {
  const usage = completion.usage;
  return { content: completion.choices[0]?.message.content ?? '', model: completion.model, tokensIn: usage?.prompt_tokens ?? 0, tokensOut: usage?.completion_tokens ?? 0 };
}

/** The same call streamed: the content put together from its chunks, the usage from the last (asked for with `include_usage`). */
async function streamed(client: OpenAI, request: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal): Promise<Answer> {
  const chunks = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }, { signal });
  let content = '';
  let model = request.model;
  let tokensIn = 0;
  let tokensOut = 0;
  for await (const chunk of chunks) {
    model = chunk.model || model;
    content += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) ({ prompt_tokens: tokensIn, completion_tokens: tokensOut } = chunk.usage);
  }
  // The client ends an aborted stream quietly, as if it were complete: it was not.
  if (signal.aborted) throw abortError(signal);
  return { content, model, tokensIn, tokensOut };
}
