import type { Attributes } from '@opentelemetry/api';
import { isTierflowError, TIER_SLUGS, type TierName } from '@tierflow/protocol';
import type { GenAiConventions } from './conventions.js';

/**
 * The GenAI semantic conventions' attributes of Tierflow's spans, built from plain facts. Pure:
 * the spans themselves are made in tracing.ts and model-call-span.ts.
 */

/** Who handles a pass: the tier, or for a Fleet leaf the specialist it runs. */
export interface AgentFacts {
  readonly tier: TierName;
  readonly rootId: string;
  /** The specialist a Fleet pass runs (its agent identity's `agent_id`), or null. */
  readonly specialist?: string | null | undefined;
}

/** The agent a pass invokes: its name (the specialist's, or the tier's slug) and a stable id (`tierflow.<slug>` for a tier). */
export function agentOf(facts: Pick<AgentFacts, 'tier' | 'specialist'>): { readonly name: string; readonly id: string } {
  if (facts.specialist) return { name: facts.specialist, id: facts.specialist };
  const slug = TIER_SLUGS[facts.tier];
  return { name: slug, id: `tierflow.${slug}` };
}

/**
 * A pass as an agent invocation (`invoke_agent`): the agent's name, its id (left off internal
 * agents in the latest conventions), and the run as the conversation. Pure.
 */
export function agentAttributes(facts: AgentFacts, conventions: GenAiConventions): Attributes {
  const agent = agentOf(facts);
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agent.name,
    ...(conventions === 'latest' ? {} : { 'gen_ai.agent.id': agent.id }),
    'gen_ai.conversation.id': facts.rootId,
  };
}

/**
 * Hosts whose provider the conventions name; any other OpenAI-compatible server (vLLM, llama.cpp,
 * Ollama, a proxy) is `openai`: the conventions name the provider by the API it speaks when it
 * has no name of its own, and a configured provider wins over both.
 */
const PROVIDER_HOSTS: readonly (readonly [RegExp, string])[] = [
  [/(^|\.)openai\.azure\.com$/, 'azure.ai.openai'],
  [/(^|\.)services\.ai\.azure\.com$/, 'azure.ai.inference'],
  [/(^|\.)api\.anthropic\.com$/, 'anthropic'],
  [/(^|\.)api\.deepseek\.com$/, 'deepseek'],
  [/(^|\.)api\.groq\.com$/, 'groq'],
  [/(^|\.)api\.mistral\.ai$/, 'mistral_ai'],
  [/(^|\.)api\.perplexity\.ai$/, 'perplexity'],
  [/(^|\.)api\.x\.ai$/, 'x_ai'],
  [/(^|\.)generativelanguage\.googleapis\.com$/, 'gcp.gemini'],
  [/(^|\.)aiplatform\.googleapis\.com$/, 'gcp.vertex_ai'],
  [/(^|\.)bedrock-runtime\.[a-z0-9-]+\.amazonaws\.com$/, 'aws.bedrock'],
];

/** The address and port of an endpoint (`http://127.0.0.1:8000/v1`), the port its scheme's when the URL names none; null when it does not parse. Pure. */
export function serverOf(endpoint: string): { readonly address: string; readonly port: number } | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return null;
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { address: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** `gen_ai.provider.name` of a call to `endpoint`: the configured one, else the host's, else `openai`. Pure. */
export function providerOf(endpoint: string, configured?: string | null): string {
  if (configured) return configured;
  const host = serverOf(endpoint)?.address.toLowerCase() ?? '';
  return PROVIDER_HOSTS.find(([pattern]) => pattern.test(host))?.[1] ?? 'openai';
}

/** A chat request's parameters the conventions name, from the OpenAI request's own. */
const REQUEST_PARAMS: readonly (readonly [string, string])[] = [
  ['max_tokens', 'gen_ai.request.max_tokens'],
  ['max_completion_tokens', 'gen_ai.request.max_tokens'],
  ['temperature', 'gen_ai.request.temperature'],
  ['top_p', 'gen_ai.request.top_p'],
  ['top_k', 'gen_ai.request.top_k'],
  ['frequency_penalty', 'gen_ai.request.frequency_penalty'],
  ['presence_penalty', 'gen_ai.request.presence_penalty'],
  ['seed', 'gen_ai.request.seed'],
  ['n', 'gen_ai.request.choice.count'],
];

/** What a model call is, as it starts. */
export interface ChatFacts {
  readonly endpoint: string;
  readonly model: string;
  /** The request's other parameters (temperature, max_tokens, stop, response_format, …). */
  readonly params: Readonly<Record<string, unknown>>;
  readonly provider?: string | null | undefined;
  readonly purpose: 'specialist' | 'planner';
  readonly replayed: boolean;
}

/** The span name of a chat call: `chat {model}`. */
export function chatSpanName(model: string): string {
  return `chat ${model}`;
}

/** A chat call's attributes known when it starts: the operation, provider, model, request parameters and server. Pure. */
export function chatRequestAttributes(facts: ChatFacts): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': providerOf(facts.endpoint, facts.provider),
    'gen_ai.request.model': facts.model,
  };
  for (const [param, name] of REQUEST_PARAMS) {
    const value = facts.params[param];
    if (typeof value === 'number' && Number.isFinite(value)) attributes[name] = value;
  }
  const stop = facts.params.stop;
  if (typeof stop === 'string') attributes['gen_ai.request.stop_sequences'] = [stop];
  else if (Array.isArray(stop) && stop.every((item) => typeof item === 'string')) attributes['gen_ai.request.stop_sequences'] = stop;
  const format = (facts.params.response_format as { type?: unknown } | undefined)?.type;
  if (format === 'json_schema' || format === 'json_object') attributes['gen_ai.output.type'] = 'json';
  else if (format === 'text') attributes['gen_ai.output.type'] = 'text';
  const server = serverOf(facts.endpoint);
  if (server) {
    attributes['server.address'] = server.address;
    attributes['server.port'] = server.port;
  }
  attributes['tierflow.model_call.purpose'] = facts.purpose;
  if (facts.replayed) attributes['tierflow.replayed'] = true;
  return attributes;
}

/** What a chat call's answer says of itself. */
export interface ChatResponseFacts {
  readonly model: string;
  readonly id: string | null;
  readonly finishReason: string | null;
  /** The tokens as the server reported them for the request that answered; null when it reported none. */
  readonly tokens: { readonly input: number; readonly output: number } | null;
  /** What the whole call was charged, its refused requests included. */
  readonly costUsd: number;
}

/** A chat call's attributes once it has answered. Pure. */
export function chatResponseAttributes(facts: ChatResponseFacts, conventions: GenAiConventions): Attributes {
  const attributes: Attributes = { 'gen_ai.response.model': facts.model };
  if (facts.id) attributes['gen_ai.response.id'] = facts.id;
  if (facts.finishReason) attributes['gen_ai.response.finish_reasons'] = [facts.finishReason];
  if (facts.tokens) {
    attributes['gen_ai.usage.input_tokens'] = facts.tokens.input;
    attributes['gen_ai.usage.output_tokens'] = facts.tokens.output;
    if (conventions === 'latest') {
      attributes['gen_ai.usage.text.input_tokens'] = facts.tokens.input;
      attributes['gen_ai.usage.text.output_tokens'] = facts.tokens.output;
    }
  }
  attributes['tierflow.cost_usd'] = facts.costUsd;
  return attributes;
}

/**
 * `error.type` of a failed call, low in cardinality as the conventions ask: the HTTP status of
 * the refusal that ended it (`429`, `503`), found down the error's causes; else the Tierflow
 * error code (`model_unreachable`, `budget_exceeded`, `replay_miss`); else the error's name
 * (`AbortError`, `TypeError`); `_OTHER` for what is no Error. Pure.
 */
export function errorTypeOf(error: unknown): string {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const status = (cause as { status?: unknown }).status;
    if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status < 600) return String(status);
  }
  if (isTierflowError(error)) return error.code;
  if (error instanceof Error) return error.name && error.name !== 'Error' ? error.name : error.constructor.name;
  return '_OTHER';
}
