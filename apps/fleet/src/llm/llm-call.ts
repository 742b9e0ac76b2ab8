import { addUsage, callCharge, callEstimate, parseRetryAfter, ZERO_USAGE, type CallEnd, type ModelPrice } from '@tierflow/core';
import { ERROR_TYPES, TierflowError, type Usage } from '@tierflow/protocol';
import { readTierflowVars } from '@tierflow/runtime/admin';
import { ModelCapacityWait, reservedTokens, resolveModelLimit } from '@tierflow/runtime/policy';
import type { ModelAnswer, ModelCall, ModelCallObservation, ModelCalls, ModelLimit, ModelRequest, ModelToolCall } from '@tierflow/runtime/policy';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { abortableDelay, abortError } from '../abortable-delay.js';
import { SpecialistThrottledError, SpecialistUnavailableError, type SpecialistUsageMeter, type SpecialistUsageReservation } from '../specialist.js';
import { classifyLlmFailure } from './llm-failure.js';
import { admitted } from './model-admission.js';
import { endpointName, UNREACHABLE_TRIES, unreachableCause, unreachableDelayMs } from './unreachable.js';
import { keepAliveFetch } from './keep-alive-fetch.js';

/** Where a model is served: an OpenAI-compatible endpoint and its key. */
export interface LlmEndpoint {
  /** e.g. `http://127.0.0.1:8000/v1`; OPENAI_BASE_URL when left out. */
  readonly baseURL?: string;
  /** OPENAI_API_KEY when left out; a local server that checks none takes any. */
  readonly apiKey?: string;
  /**
   * Who serves the model, as the GenAI conventions name providers (`openai`, `azure.ai.openai`,
   * `groq`, …), for the calls' spans and metrics; left out, it is told from the endpoint's host,
   * and any OpenAI-compatible server (vLLM, llama.cpp, Ollama) is `openai`.
   */
  readonly provider?: string;
}

/** The process's HTTP for model calls: keep-alive connections, shared by every client of an endpoint. */
const modelFetch = keepAliveFetch();

/**
 * An `openai` client for the endpoint, with the client's own retries off (the caller knows the
 * deadline, the client does not), over {@link keepAliveFetch}.
 */
export function openAiClient(endpoint: LlmEndpoint): OpenAI {
  const env = readTierflowVars(process.env, ['OPENAI_BASE_URL', 'OPENAI_API_KEY']);
  return new OpenAI({ baseURL: endpoint.baseURL ?? env.OPENAI_BASE_URL ?? null, apiKey: endpoint.apiKey ?? env.OPENAI_API_KEY ?? 'none', maxRetries: 0, fetch: modelFetch });
}

/** How long a call may take, what stops it, and what it is counted against. */
export interface CallLimits {
  readonly signal: AbortSignal;
  /** When the answer must be in (ms since the epoch), or null. */
  readonly deadline: number | null;
  /** The run's meter: each request is reserved before it is sent (refused: none is sent) and settled after. */
  readonly usage: SpecialistUsageMeter;
  /** The model's price, for the reservation and the charge; null: calls cost 0. */
  readonly price: ModelPrice | null;
  /** The node's model calls: each call is recorded there, and a rerun that replays answers it from its recording. */
  readonly calls: ModelCalls;
  /** What makes the call: a specialist, or a planner. */
  readonly purpose: ModelCall['purpose'];
  /** The endpoint's provider for the call's span and metrics (see {@link LlmEndpoint.provider}). */
  readonly provider?: string | undefined;
  /** The model's shared limits (docs/operations.md#model-limits), enforced through `calls.limiter`; none when left out, though a busy server's pause still holds. */
  readonly modelLimit?: ModelLimit | undefined;
}

/** What a call came back with, streamed or not, and how many requests it took (a busy endpoint's refusals included). */
export interface CallResult {
  readonly content: string;
  /** The tools the model asked to call (none: it answered). */
  readonly toolCalls: readonly ModelToolCall[];
  /** The model that answered, as the endpoint names it. */
  readonly model: string;
  /** What every request of the call was charged: the endpoint's counts, priced, and one call per request. */
  readonly usage: Usage;
  /** The endpoint reported no usage: the tokens are estimated from the prompt and the answer. */
  readonly estimated: boolean;
  readonly tries: number;
  /** Answered from a recording (a replay): no request was sent, and nothing was charged. */
  readonly replayed: boolean;
}

/** How an LLM specialist calls its model, resolved from its options. */
export interface CallSettings {
  readonly model: string;
  readonly defaultConfidence: number;
  readonly systemPrompt: string | undefined;
  readonly price: ModelPrice | null;
  readonly stream: boolean;
  readonly maxTokens: number | undefined;
  readonly provider: string | undefined;
  readonly modelLimit: ModelLimit;
}

/** No limits of its own: only a busy server's pause holds the model. */
const NO_LIMIT = resolveModelLimit(undefined);

/** The text a request's prompt tokens are estimated from: its messages, response format and tools, as JSON. */
export function promptText(request: Pick<ChatCompletionCreateParamsNonStreaming, 'messages' | 'response_format' | 'tools'>): string {
  return JSON.stringify({ messages: request.messages, response_format: request.response_format, tools: request.tools });
}

/**
 * One chat completion. A busy endpoint (429, 503) is waited out when its Retry-After fits before
 * the deadline; otherwise the failure becomes the error its status calls for: throttled,
 * unavailable (the model is not served), retryable or permanent. An endpoint that cannot be
 * reached (refused, unknown host, TLS) is tried {@link UNREACHABLE_TRIES} times, within the
 * deadline, and then answered `model_unreachable`; those tries reached no model and cost nothing,
 * not even a call against the budget.
 *
 * @throws SpecialistThrottledError, SpecialistUnavailableError, TierflowError (`llm_call_failed`
 *   retryable, `llm_call_refused` or `model_unreachable` permanent), or the abort reason when `signal` fires.
 */
export async function chatCompletion(client: OpenAI, request: ChatCompletionCreateParamsNonStreaming, limits: CallLimits, stream = false): Promise<CallResult> {
  const recorded = modelRequest(client, request);
  const startedAt = Date.now();
  const replayed = await limits.calls.replay(recorded);
  // A span under the hop's, and the model-call metrics: a replayed call is marked so, and not measured.
  const observed = limits.calls.observe({ purpose: limits.purpose, request: recorded, replayed: replayed !== null, ...(limits.provider ? { provider: limits.provider } : {}) });
  if (replayed) {
    limits.calls.record({
      purpose: limits.purpose,
      request: recorded,
      answer: replayed,
      error: null,
      usage: ZERO_USAGE,
      estimated: false,
      started_at: startedAt,
      latency_ms: Date.now() - startedAt,
      tries: 0,
      waits_ms: [],
      replayed: true,
    });
    observed.answered({ answer: replayed, id: null, tokens: null, costUsd: 0 });
    return { content: replayed.content, toolCalls: replayed.tool_calls ?? [], model: replayed.model, usage: ZERO_USAGE, estimated: false, tries: 0, replayed: true };
  }
  const tried: Tried = { waits: 0, unreached: 0, waitsMs: [], tries: 0, charged: ZERO_USAGE, observed };
  const end = (answer: ModelAnswer | null, error: unknown, usage: Usage, estimated: boolean) =>
    limits.calls.record({
      purpose: limits.purpose,
      request: recorded,
      answer,
      error: error === null ? null : error instanceof Error ? error.message : JSON.stringify(error),
      usage,
      estimated,
      started_at: startedAt,
      latency_ms: Date.now() - startedAt,
      tries: tried.tries,
      waits_ms: tried.waitsMs,
      replayed: false,
    });
  try {
    const result = await callModel(client, request, limits, tried, stream);
    const answer: ModelAnswer = { content: result.content, model: result.model, finish_reason: result.finishReason, ...(result.toolCalls.length > 0 ? { tool_calls: result.toolCalls } : {}) };
    end(answer, null, result.usage, result.estimated);
    observed.answered({ answer, id: result.id, tokens: result.reported === null ? null : { input: result.reported.tokensIn, output: result.reported.tokensOut }, costUsd: result.usage.cost_usd });
    return { content: result.content, toolCalls: result.toolCalls, model: result.model, usage: result.usage, estimated: result.estimated, tries: result.tries, replayed: false };
  } catch (error) {
    // Parked before anything was sent: the call is made, and recorded, when the job comes back.
    if (error instanceof ModelCapacityWait) {
      observed.parked(error.until);
      throw error;
    }
    end(null, error, tried.charged, false);
    observed.failed(error, tried.charged.cost_usd);
    throw error;
  }
}

/** The request as it is recorded and matched for replay: the endpoint without credentials, the model, the messages, every other parameter but streaming. */
function modelRequest(client: OpenAI, request: ChatCompletionCreateParamsNonStreaming): ModelRequest {
  const { model, messages, stream: _stream, stream_options: _options, ...params } = request as ChatCompletionCreateParamsNonStreaming & { stream_options?: unknown };
  return { endpoint: endpointName(client.baseURL), model, messages, params };
}

/** How a call has gone so far: Retry-After waits, unreachable tries, requests sent, what its failed requests were charged; and its observation, told of each wait. */
interface Tried {
  waits: number;
  unreached: number;
  readonly waitsMs: number[];
  tries: number;
  charged: Usage;
  readonly observed: ModelCallObservation;
}

/** What a call's limits are kept under: its model's name, or its endpoint's when every model there shares them. */
function limitNameOf(limits: CallLimits, model: string): string {
  return limits.modelLimit?.sharedBy ?? model;
}

async function callModel(
  client: OpenAI,
  request: ChatCompletionCreateParamsNonStreaming,
  limits: CallLimits,
  tried: Tried,
  stream: boolean,
): Promise<Omit<Answer, 'usage'> & { usage: Usage; estimated: boolean; tries: number; reported: Answer['usage'] }> {
  // The most one request may use: its prompt estimated, its output at max_tokens (or the default reservation).
  const estimate = callEstimate(promptText(request), request.max_tokens, limits.price);
  const modelLimit = limits.modelLimit ?? NO_LIMIT;
  for (let tries = 1; ; tries++) {
    tried.tries = tries;
    // The model's shared limits first: a call over them waits here, and sends nothing until it may.
    const permit = await admitted({
      limiter: limits.calls.limiter,
      waiter: limits.calls.waiter,
      parking: limits.calls.parking,
      limit: modelLimit,
      model: limitNameOf(limits, request.model),
      tokens: reservedTokens(estimate),
      signal: limits.signal,
      deadline: limits.deadline,
      onWait: (ms, limit) => {
        tried.waitsMs.push(ms);
        tried.observed.waited({ ms, reason: 'model_limit', limit, status: null, attempt: tries });
      },
    });
    let reservation: SpecialistUsageReservation;
    try {
      reservation = await limits.usage.reserve(estimate);
    } catch (error) {
      await permit.settle(0, true);
      throw error;
    }
    const settle = async (end: CallEnd) => {
      const charge = callCharge(estimate, end, limits.price);
      await Promise.all([reservation.settle(charge.usage, charge.estimated), permit.settle(charge.usage.tokens_in + charge.usage.tokens_out, end.kind === 'unsent')]);
      return charge;
    };
    if (limits.signal.aborted) {
      await settle({ kind: 'refused' });
      throw abortError(limits.signal);
    }
    let answer: Answer;
    try {
      answer = stream ? await streamed(client, request, limits.signal) : whole(await client.chat.completions.create(request, { signal: limits.signal }));
    } catch (error) {
      const failure = await failed(client, request, limits, tried, error, settle);
      tried.charged = addUsage(tried.charged, failure.charged);
      tried.waitsMs.push(failure.waitMs);
      await abortableDelay(failure.waitMs, limits.signal);
      continue;
    }
    const charge = await settle(answer.usage ? { kind: 'answered', ...answer.usage } : { kind: 'unreported', content: answer.content });
    return {
      content: answer.content,
      toolCalls: answer.toolCalls,
      model: answer.model,
      id: answer.id,
      finishReason: answer.finishReason,
      usage: addUsage(charge.usage, tried.charged),
      estimated: charge.estimated,
      tries,
      reported: answer.usage,
    };
  }
}

/**
 * A request that got no answer: settled as never sent (no connection), as sent (aborted, or the
 * connection broke) or as refused (an HTTP status), then tried again (an endpoint not reached, a
 * Retry-After) or thrown as the error its status calls for.
 */
async function failed(
  client: OpenAI,
  request: ChatCompletionCreateParamsNonStreaming,
  limits: CallLimits,
  tried: Tried,
  error: unknown,
  settle: (end: CallEnd) => Promise<{ usage: Usage }>,
): Promise<{ waitMs: number; charged: Usage }> {
  // The client types these loosely: a connection error has neither.
  const status = error instanceof OpenAI.APIError ? (error.status as number | undefined) : undefined;
  const unreached = status === undefined && !limits.signal.aborted ? unreachableCause(error) : null;
  // The provider bills a prompt it received: an aborted request, or one whose connection broke, may
  // have been; one that never had a connection was not, and is no call at all.
  const charged = (await settle(unreached !== null ? { kind: 'unsent' } : status === undefined ? { kind: 'lost' } : { kind: 'refused' })).usage;
  if (limits.signal.aborted) throw abortError(limits.signal);
  const endpoint = endpointName(client.baseURL);
  if (unreached !== null) {
    tried.unreached++;
    const waitMs = unreachableDelayMs(tried.unreached);
    const fits = limits.deadline === null || Date.now() + waitMs < limits.deadline;
    if (tried.unreached < UNREACHABLE_TRIES && fits) {
      tried.observed.waited({ ms: waitMs, reason: 'unreachable', status: null, attempt: tried.tries });
      return { waitMs, charged };
    }
    const tries = `${tried.unreached} ${tried.unreached === 1 ? 'try' : 'tries'}`;
    throw TierflowError.permanent(`model endpoint ${endpoint} unreachable (${unreached}) after ${tries}, for ${request.model}`, {
      code: ERROR_TYPES.modelUnreachable,
      cause: error,
    });
  }
  if (!(error instanceof OpenAI.APIError)) throw error;
  const now = Date.now();
  const headers = error.headers as Headers | undefined;
  const retryAfterMs = parseRetryAfter(headers?.get('retry-after') ?? undefined, now);
  // A busy server pauses its model for every process, not only for this call.
  if ((status === 429 || status === 503) && retryAfterMs !== undefined && retryAfterMs > 0 && limits.calls.limiter) {
    // Best effort: a pause not written leaves each process to meet the server's 429s on its own, as before.
    await limits.calls.limiter.pause(limitNameOf(limits, request.model), retryAfterMs).catch(() => undefined);
  }
  const failure = classifyLlmFailure(status, retryAfterMs, limits.deadline === null ? null : limits.deadline - now, tried.waits);
  const detail = `${request.model} at ${endpoint}: ${error.message}`;
  switch (failure.kind) {
    case 'wait':
      tried.waits++;
      tried.observed.waited({ ms: failure.ms, reason: 'retry_after', status: status ?? null, attempt: tried.tries });
      return { waitMs: failure.ms, charged };
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

/** One request's answer: its content, the model, and the endpoint's token counts (null when it reported none). */
interface Answer {
  readonly content: string;
  readonly toolCalls: readonly ModelToolCall[];
  readonly model: string;
  /** The response's id (`chatcmpl-…`), or null when the endpoint gave none. */
  readonly id: string | null;
  readonly finishReason: string | null;
  readonly usage: { readonly tokensIn: number; readonly tokensOut: number } | null;
}

function whole(completion: ChatCompletion): Answer {
  const usage = completion.usage;
  const choice = completion.choices[0];
  return {
    content: choice?.message.content ?? '',
    // Custom tools (free text, no function) are never offered, so only function calls are read.
    toolCalls: (choice?.message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [])),
    model: completion.model,
    id: completion.id || null,
    finishReason: choice?.finish_reason ?? null,
    usage: usage ? { tokensIn: usage.prompt_tokens, tokensOut: usage.completion_tokens } : null,
  };
}

/** The same call streamed: the content put together from its chunks, the usage from the last (asked for with `include_usage`). */
async function streamed(client: OpenAI, request: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal): Promise<Answer> {
  const chunks = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }, { signal });
  let content = '';
  let model = request.model;
  let id: string | null = null;
  let usage: Answer['usage'] = null;
  let finishReason: string | null = null;
  // A streamed tool call comes in pieces, by its index: its id and name first, its arguments in parts.
  const calls: { id: string; name: string; arguments: string }[] = [];
  for await (const chunk of chunks) {
    model = chunk.model || model;
    id = chunk.id || id;
    content += chunk.choices[0]?.delta.content ?? '';
    for (const part of chunk.choices[0]?.delta.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
      call.id = part.id ?? call.id;
      call.name += part.function?.name ?? '';
      call.arguments += part.function?.arguments ?? '';
    }
    finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    if (chunk.usage) usage = { tokensIn: chunk.usage.prompt_tokens, tokensOut: chunk.usage.completion_tokens };
  }
  // The client ends an aborted stream quietly, as if it were complete: it was not.
  if (signal.aborted) throw abortError(signal);
  return { content, toolCalls: calls.filter((call) => call !== undefined), model, id, finishReason, usage };
}
