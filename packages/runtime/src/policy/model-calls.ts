import { TierflowError, type Usage } from '@tierflow/protocol';
import type { NodeToolCalls } from './tool-calls.js';

/** A model request as it is recorded and matched for replay: where it went, and everything that decides the answer. */
export interface ModelRequest {
  /** The endpoint's base URL without credentials, e.g. `http://127.0.0.1:8000/v1`. */
  readonly endpoint: string;
  readonly model: string;
  /** The chat messages, as sent. */
  readonly messages: readonly unknown[];
  /** Every other parameter of the request that decides its answer (temperature, max_tokens, response_format, …). */
  readonly params: Readonly<Record<string, unknown>>;
}

/** What a model answered. */
export interface ModelAnswer {
  /** The text, or the structured output as JSON text. */
  readonly content: string;
  /** The model that answered, as the endpoint names it. */
  readonly model: string;
  readonly finish_reason: string | null;
  /** The tools the model asked to call, when it asked for any: each call's id, the tool's function name and its arguments as JSON text. */
  readonly tool_calls?: readonly ModelToolCall[] | undefined;
}

/** A tool call a model asked for. */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text, as the model wrote it (it may not parse). */
  readonly arguments: string;
}

/** One model call of a node, as it is recorded: its request, its answer or error, what it was charged, how long it took. */
export interface ModelCall {
  /** What made it: a Fleet specialist, or a planner (the Architect's, the Dispatcher's). */
  readonly purpose: 'specialist' | 'planner';
  readonly request: ModelRequest;
  /** Null when the call failed. */
  readonly answer: ModelAnswer | null;
  /** Why it failed; null when it answered. */
  readonly error: string | null;
  /** What it was charged (zero when it was replayed). */
  readonly usage: Usage;
  /** The endpoint reported no usage: the tokens are estimates. */
  readonly estimated: boolean;
  /** When it started, ms since the epoch. */
  readonly started_at: number;
  readonly latency_ms: number;
  /** Requests it took: a busy endpoint's refusals included. */
  readonly tries: number;
  /** Each wait, in ms: for the model's shared limits, a Retry-After, an unreachable endpoint. */
  readonly waits_ms: readonly number[];
  /** Answered from a recording (tierflow rerun --replay): no request reached the model. */
  readonly replayed: boolean;
}

/**
 * A node's model calls, as work that calls models sees them (docs/operations.md#recording): ask
 * for a recorded answer before each call, record each call after it.
 */
export interface ModelCalls {
  /**
   * The recorded answer to `request` when this run replays recorded calls (`tierflow rerun
   * --replay`, and outside a fork's subtree); null: call the model.
   * @throws TierflowError (permanent, code `replay_miss`) when the run replays strictly and nothing recorded matches.
   */
  replay(request: ModelRequest): Promise<ModelAnswer | null>;
  /** Records a call once it has ended, however it ended. Never throws, never waits. */
  record(call: ModelCall): void;
  /**
   * Observes a call as it is made (docs/operations.md#traces-in-the-genai-conventions): a `chat
   * {model}` span under the hop's, and the model-call metrics. Start it once the call is known to be
   * replayed or sent, and tell it each wait and then how the call ended. Never throws.
   */
  observe(start: ModelCallStart): ModelCallObservation;
  /** The deployment's shared model limits; left out (a test, a script), calls are limited by nothing shared. */
  readonly limiter?: ModelLimiter;
  /** Whose calls these are, for taking turns at a limited model; left out, a run of its own at the default priority. */
  readonly waiter?: ModelWaiter;
  /** Present when a long wait for a limited model may park the pass instead of holding its worker (see {@link ModelParking}). */
  readonly parking?: ModelParking;
  /** The node's tool calls (a specialist's tool loop): bounded, counted, traced and recorded. Left out (a test, a script), tools are called unbounded and unrecorded. */
  readonly tools?: NodeToolCalls;
}

/**
 * How a pass's first model call may leave its worker while it waits for its model
 * (docs/operations.md#waiting-without-holding-a-worker): until a call of the pass is granted,
 * nothing the pass did would be lost by starting it again, so a long wait parks the job in
 * BullMQ's delayed set ({@link ModelCapacityWait}) and the job starts afresh when the wait ends.
 */
export interface ModelParking {
  /** The id the call waits under: the same on each pass of the job's attempt, so a parked call finds its place in turn again. */
  readonly id: string;
  /** Whether a wait may still park the pass: no call of it granted yet. */
  available(): boolean;
  /** A call of the pass was granted: from now on its waits are waited where they are. */
  granted(): void;
}

/**
 * Thrown by a model call that parks its pass (see {@link ModelParking}): the engine moves the job
 * to BullMQ's delayed set until `until` instead of answering. Escaping anywhere else, it is a
 * transient error, and BullMQ runs the job again.
 */
export class ModelCapacityWait extends TierflowError {
  override readonly name = 'ModelCapacityWait';
  constructor(
    readonly model: string,
    /** When the model may have room for it again (ms since the epoch). */
    readonly until: number,
    /** What held it: a limit (`rpm`, `tpm`), or `paused` (a busy server's Retry-After). */
    readonly reason: string,
  ) {
    super(`${model}: waiting for its ${reason === 'paused' ? 'pause' : `${reason} limit`} until ${new Date(until).toISOString()}`, { code: 'model_capacity_wait', retryable: true });
  }
}

/** A model call as its observation starts. */
export interface ModelCallStart {
  readonly purpose: ModelCall['purpose'];
  readonly request: ModelRequest;
  /** Answered from a recording: no request reaches the model, and the call is not measured as one. */
  readonly replayed: boolean;
  /** The provider as the GenAI conventions name it (`openai`, `azure.ai.openai`, …); derived from the endpoint when left out. */
  readonly provider?: string;
}

/** A wait between two requests of a call. */
export interface ModelCallWait {
  readonly ms: number;
  /** The endpoint asked for it (Retry-After), could not be reached, or the model's shared limits held the request back (`model_limit`, before it was sent). */
  readonly reason: 'retry_after' | 'unreachable' | 'model_limit';
  /** For a `model_limit` wait: what held it (`paused`, `rpm`, `tpm` or `concurrent`). */
  readonly limit?: string;
  /** The HTTP status of the refusal that asked for it; null for an endpoint not reached. */
  readonly status: number | null;
  /** The request it follows: 1 for the first. */
  readonly attempt: number;
}

/** How a call answered, as its observation is told. */
export interface ModelCallReply {
  readonly answer: ModelAnswer;
  /** The response's id, as the endpoint gave it; null when it gave none. */
  readonly id: string | null;
  /** The tokens the endpoint reported for the request that answered; null when it reported none. */
  readonly tokens: { readonly input: number; readonly output: number } | null;
  /** What the whole call was charged, in US dollars. */
  readonly costUsd: number;
}

/** One call's observation. Never throws. */
export interface ModelCallObservation {
  waited(wait: ModelCallWait): void;
  /** The call answered: once, and last. */
  answered(reply: ModelCallReply): void;
  /** The call failed with `error` after it was charged `costUsd`: once, and last. */
  failed(error: unknown, costUsd: number): void;
  /** The call parked its pass until `until` before any request was sent (ModelParking): once, and last; it is made again then, and measured then. */
  parked(until: number): void;
}

/** Observes nothing. */
export const UNOBSERVED_CALL: ModelCallObservation = {
  waited: () => undefined,
  answered: () => undefined,
  failed: () => undefined,
  parked: () => undefined,
};

/** Records, replays and observes nothing: for work outside a tier worker (a test, a script). */
export const UNRECORDED_CALLS: ModelCalls = {
  replay: () => Promise.resolve(null),
  record: () => undefined,
  observe: () => UNOBSERVED_CALL,
};

/**
 * A model's shared limits (docs/operations.md#model-limits), resolved: null where the model has
 * none. Every process that calls the model holds it to the same numbers.
 */
export interface ModelLimit {
  /** Requests per window. */
  readonly rpm: number | null;
  /** Tokens per window: each request's estimate while it runs, what the server reported after. */
  readonly tpm: number | null;
  /** Requests in flight at once. */
  readonly concurrent: number | null;
  /** The sliding window, in ms: 60,000 (a minute) outside tests. */
  readonly windowMs: number;
  /**
   * The name the limits are kept under when not the model's own: an endpoint's, whose every model
   * (a vLLM server's LoRA adapters) shares them; null: the model's name.
   */
  readonly sharedBy: string | null;
}

/** What a reservation got: granted, or how long to wait before asking again, and why (`queued`: behind callers whose turn comes first). */
export type ModelAdmission = { readonly granted: true } | { readonly granted: false; readonly waitMs: number; readonly reason: 'rpm' | 'tpm' | 'concurrent' | 'paused' | 'queued' };

/** Who asks for a model, for taking turns: its run (the root's id) and its delegation's priority (0, critical, to 4). */
export interface ModelWaiter {
  readonly run: string;
  readonly priority: number;
}

/**
 * A deployment's model limits, shared by every process through Redis: reserve before a request,
 * settle after it, pause a model a server said was busy. Each method is one atomic step; the
 * waiting between them is the caller's (it knows the deadline and the signal).
 */
export interface ModelLimiter {
  /** Reserves one request of `tokens` (estimated) under `id`, in `waiter`'s turn; the same id reserved again is granted again. */
  reserve(model: string, limit: ModelLimit, id: string, tokens: number, leaseMs: number, waiter: ModelWaiter): Promise<ModelAdmission>;
  /**
   * Settles a reservation: its concurrent slot and its place in turn are released, and its tokens
   * become `used` (null: the estimate stands); `unsent`: the request never left (or a waiter gave
   * up), so it counts for nothing.
   */
  settle(model: string, limit: ModelLimit, id: string, used: number | null, unsent: boolean): Promise<void>;
  /** Pauses `model` for every process for `ms` (a 429 or 503 with Retry-After); a longer pause already set stands. */
  pause(model: string, ms: number): Promise<void>;
  /**
   * Where a limiter hears of room freed (RoomWaits): waits, for the reservation `id` refused a
   * concurrent slot or its turn, until a settle anywhere names it, `ms` pass, or `signal` fires.
   * Left out, the caller waits what the reservation said and asks again.
   */
  waitForRoom?(id: string, ms: number, signal: AbortSignal): Promise<void>;
}
