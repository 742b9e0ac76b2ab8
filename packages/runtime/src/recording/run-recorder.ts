import { createHash } from 'node:crypto';
import type { RedisClient } from '@tierflow/beads';
import type { DelegationMessage, OutcomeMessage, TierName } from '@tierflow/protocol';
import type { ModelCall, ModelRequest } from '../policy/model-calls.js';
import type { TierLogger } from '../policy/handler.js';
import type { RedisWrites } from '../redis/fenced-batch.js';
import { recordKey } from '../redis/keys.js';
import { bounded, DEFAULT_RECORD_BOUNDS, digestOf, type RecordBounds } from './bounded.js';
import { RECORD_FIELD, type PassEntry, type RecordEntryInput } from './record-entry.js';
import type { RecordMode } from '../config/record-mode.js';

/** What identifies a model request for replay: the sha256 of its model, messages and parameters (not its endpoint, which a replay may move). */
export function requestHash(request: Pick<ModelRequest, 'model' | 'messages' | 'params'>): string {
  return createHash('sha256')
    .update(stableJson({ model: request.model, messages: request.messages, params: request.params }))
    .digest('hex');
}

/** JSON with object keys sorted, so one request hashes one way whatever order its fields were built in. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const fields = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${fields.map(([name, item]) => `${JSON.stringify(name)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface RunRecorderOptions {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly tier: TierName;
  readonly mode: RecordMode;
  /** How long a run's recording is kept after its last entry: its audit trail's TTL. */
  readonly ttlMs: number;
  readonly log: TierLogger;
  /** This worker process, `<host>:<pid>`, named in the passes it records. */
  readonly worker: string;
  readonly bounds?: RecordBounds;
}

/**
 * What one tier worker records of the nodes it runs (docs/operations.md#recording), into the run's
 * stream. Entries that end a pass ride the pass's own fenced batch; the rest (a delegation taken
 * up, a model call) are sent at once without waiting, like the audit trail's receipts. Each write
 * renews the stream's TTL, whichever tier writes first. With `none` nothing is written.
 */
export class RunRecorder {
  private readonly bounds: RecordBounds;
  private warned = false;

  constructor(private readonly options: RunRecorderOptions) {
    this.bounds = options.bounds ?? DEFAULT_RECORD_BOUNDS;
  }

  get mode(): RecordMode {
    return this.options.mode;
  }

  get on(): boolean {
    return this.options.mode !== 'none';
  }

  /** A message, prompt or answer as this deployment records it: bounded, or only its digest under `metadata`. */
  value(value: unknown): unknown {
    return this.options.mode === 'metadata' ? digestOf(value) : bounded(value, this.bounds);
  }

  /** The delegation a node took up, with its context references' values (read by the caller only when {@link on}). */
  delegation(rootId: string, node: string, message: DelegationMessage | Record<string, unknown>, attempt: number, at: number, context: Record<string, unknown>, edits: readonly string[] = []): void {
    if (!this.on) return;
    const values = Object.fromEntries(Object.entries(context).map(([ref, value]) => [ref, this.value(value)]));
    this.now(rootId, { kind: 'delegation', node, tier: this.options.tier, at, attempt, message: this.value(message), context: values, edits: [...edits] });
  }

  /** The outcome a node sent, on the batch that sends it. */
  outcome(writes: RedisWrites, rootId: string, node: string, message: OutcomeMessage, at: number): void {
    if (!this.on) return;
    this.onto(writes, rootId, { kind: 'outcome', node, tier: this.options.tier, at, message: this.value(message) });
  }

  /** A pass that ended, on its batch when it has one, else at once (a pass that parks or retries has no batch of its own to ride). */
  pass(writes: RedisWrites | null, rootId: string, entry: Omit<PassEntry, 'kind' | 'tier' | 'worker'>): void {
    if (!this.on) return;
    const full: RecordEntryInput = { kind: 'pass', tier: this.options.tier, worker: this.options.worker, ...entry };
    if (writes) this.onto(writes, rootId, full);
    else this.now(rootId, full);
  }

  /** A node's model call, once it has ended. */
  call(rootId: string, node: string, call: ModelCall): void {
    if (!this.on) return;
    const { request, answer } = call;
    this.now(rootId, {
      kind: 'call',
      node,
      tier: this.options.tier,
      purpose: call.purpose,
      endpoint: request.endpoint,
      model: request.model,
      request: this.value({ messages: request.messages, params: request.params }),
      request_hash: requestHash(request),
      answer: answer === null ? null : this.value(answer),
      error: call.error,
      usage: { tokens_in: call.usage.tokens_in, tokens_out: call.usage.tokens_out, cost_usd: call.usage.cost_usd, llm_calls: call.usage.llm_calls },
      estimated: call.estimated,
      started_at: call.started_at,
      latency_ms: call.latency_ms,
      tries: call.tries,
      waits_ms: [...call.waits_ms],
      replayed: call.replayed,
    });
  }

  /** A fork's node that answered with the outcome recorded for `from`, on the batch of its answer. */
  reused(writes: RedisWrites, rootId: string, node: string, from: string, at: number): void {
    if (!this.on) return;
    this.onto(writes, rootId, { kind: 'reused', node, tier: this.options.tier, at, from });
  }

  private onto(writes: RedisWrites, rootId: string, entry: RecordEntryInput): void {
    const key = recordKey(this.options.prefix, rootId);
    writes.xadd(key, '*', RECORD_FIELD, JSON.stringify(entry));
    writes.pexpire(key, this.options.ttlMs);
  }

  /** Sent at once, not awaited: commands on one connection keep their order, and a lost entry is logged, never fatal. */
  private now(rootId: string, entry: RecordEntryInput): void {
    const key = recordKey(this.options.prefix, rootId);
    this.options.redis
      .multi()
      .xadd(key, '*', RECORD_FIELD, JSON.stringify(entry))
      .pexpire(key, this.options.ttlMs)
      .exec()
      .catch((error: unknown) => {
        if (this.warned) return;
        this.warned = true;
        this.options.log.warn('could not record what a node did (the run goes on; its recording has a gap)', { key, error: String(error) });
      });
  }
}
