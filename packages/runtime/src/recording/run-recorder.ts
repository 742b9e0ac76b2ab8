import { createHash, type Hash } from 'node:crypto';
import type { RedisClient } from '@tierflow/beads';
import type { TierName } from '@tierflow/protocol';
import type { ModelCall, ModelRequest } from '../policy/model-calls.js';
import type { ToolCall } from '../policy/tool-calls.js';
import type { TierLogger } from '../policy/handler.js';
import type { RedisWrites } from '../redis/fenced-batch.js';
import { recordKey } from '../redis/keys.js';
import { DEFAULT_RECORD_BOUNDS, recordText, type RecordBounds } from './bounded.js';
import { RECORD_FIELD, type RecordEntryInput } from './record-entry.js';
import type { RecordMode } from '../config/record-mode.js';

/** What identifies a model request for replay: the sha256 of its model, messages and parameters (not its endpoint, which a replay may move). */
export function requestHash(request: Pick<ModelRequest, 'model' | 'messages' | 'params'>): string {
  const hash = createHash('sha256');
  hashStableJson(hash, { model: request.model, messages: request.messages, params: request.params });
  return hash.digest('hex');
}

/**
 * What identifies a tool call for replay: `tool:` and the sha256 of its tool's name and its
 * arguments (keys sorted), apart from every model request's hash by its prefix.
 */
export function toolCallHash(name: string, args: unknown): string {
  const hash = createHash('sha256');
  hashStableJson(hash, { tool: name, arguments: args });
  return `tool:${hash.digest('hex')}`;
}

/**
 * Feeds `hash` the JSON of `value` with object keys sorted, so one request hashes one way whatever
 * order its fields were built in. Piece by piece rather than as one string: a request's messages
 * are most of a Fleet's bytes, and joining them level by level copied them each time.
 */
function hashStableJson(hash: Hash, value: unknown): void {
  if (Array.isArray(value)) {
    hash.update('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) hash.update(',');
      hashStableJson(hash, value[i] ?? null);
    }
    hash.update(']');
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const names = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort();
    hash.update('{');
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      hash.update(`${i > 0 ? ',' : ''}${JSON.stringify(name)}:`);
      hashStableJson(hash, record[name]);
    }
    hash.update('}');
    return;
  }
  if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) {
    // A prompt is most of a request: hashed in place, not copied into its JSON first.
    hash.update('"');
    hash.update(value);
    hash.update('"');
    return;
  }
  hash.update(JSON.stringify(value) ?? 'null');
}

/** What JSON.stringify writes other than as it is: quotes, backslashes, control characters, surrogates (lone ones are escaped). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

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

/** The fields of each kind of entry that hold messages, prompts and answers: cut, or recorded as digests. */
const HEAVY: Record<RecordEntryInput['kind'], readonly string[]> = {
  delegation: ['message', 'context'],
  outcome: ['message'],
  call: ['request', 'answer'],
  pass: [],
  reused: [],
  context: ['value'],
  tool: ['arguments', 'result'],
};

/** How many (run, value) pairs a recorder remembers having written; past them it forgets all, and at worst writes a value again. */
const REMEMBERED_CONTEXTS = 10_000;

/** What a delegation entry holds for a context value recorded in a `context` entry of the run. */
export interface ContextMark {
  readonly $context: string;
}

/**
 * What one tier worker records of the nodes it runs (docs/operations.md#recording), into the run's
 * stream: the entries of a pass's end together, as one stream entry, on the pass's own fenced
 * batch when it has one (an answer's); the rest (a pass that parks or retries, a model call) sent
 * at once without waiting, like the audit trail's receipts. Each write renews the stream's TTL,
 * whichever tier writes first. With `none` nothing is made or written.
 */
export class RunRecorder {
  private readonly bounds: RecordBounds;
  private warned = false;
  /** `<stream key> <sha256>` of the context values this process has recorded. */
  private readonly contexts = new Set<string>();

  constructor(private readonly options: RunRecorderOptions) {
    this.bounds = options.bounds ?? DEFAULT_RECORD_BOUNDS;
  }

  get mode(): RecordMode {
    return this.options.mode;
  }

  get on(): boolean {
    return this.options.mode !== 'none';
  }

  get tier(): TierName {
    return this.options.tier;
  }

  get worker(): string {
    return this.options.worker;
  }

  /**
   * A context reference's value as node `node` read it (its stored JSON; null: none), for the
   * node's delegation entry: `{ $context: <sha256> }`, the value itself written to the run's
   * recording at once the first time this process meets it in the run (again if that write fails).
   */
  context(rootId: string, node: string, at: number, ref: string, text: string | null): ContextMark | null {
    if (text === null || !this.on) return null;
    const sha256 = createHash('sha256').update(text).digest('hex');
    const seen = `${recordKey(this.options.prefix, rootId)} ${sha256}`;
    if (!this.contexts.has(seen)) {
      if (this.contexts.size >= REMEMBERED_CONTEXTS) this.contexts.clear();
      this.contexts.add(seen);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = text;
      }
      this.write(null, rootId, [{ kind: 'context', node, tier: this.options.tier, at, ref, sha256, value }], () => this.contexts.delete(seen));
    }
    return { $context: sha256 };
  }

  /** Entries of one node, on `writes` when given, else at once (`failed` called if that write fails). */
  write(writes: RedisWrites | null, rootId: string, entries: readonly RecordEntryInput[], failed?: () => void): void {
    const { mode } = this.options;
    if (mode === 'none' || entries.length === 0) return;
    const text = `[${entries.map((entry) => recordText(entry, HEAVY[entry.kind], mode, this.bounds)).join(',')}]`;
    const key = recordKey(this.options.prefix, rootId);
    if (writes) {
      writes.xadd(key, '*', RECORD_FIELD, text);
      writes.pexpire(key, this.options.ttlMs);
      return;
    }
    // Not awaited: commands on one connection keep their order, and a lost entry is logged, never fatal.
    this.options.redis
      .multi()
      .xadd(key, '*', RECORD_FIELD, text)
      .pexpire(key, this.options.ttlMs)
      .exec()
      .catch((error: unknown) => {
        failed?.();
        if (this.warned) return;
        this.warned = true;
        this.options.log.warn('could not record what a node did (the run goes on; its recording has a gap)', { key, error: String(error) });
      });
  }

  /** A node's tool call, once it has ended. */
  tool(rootId: string, node: string, call: ToolCall): void {
    if (!this.on) return;
    this.write(null, rootId, [{ kind: 'tool', node, tier: this.options.tier, ...call, result_bytes: Buffer.byteLength(call.result) }]);
  }

  /** A node's model call, once it has ended. */
  call(rootId: string, node: string, call: ModelCall): void {
    if (!this.on) return;
    const { request, answer } = call;
    this.write(null, rootId, [
      {
        kind: 'call',
        node,
        tier: this.options.tier,
        purpose: call.purpose,
        endpoint: request.endpoint,
        model: request.model,
        request: { messages: request.messages, params: request.params },
        request_hash: requestHash(request),
        answer,
        error: call.error,
        usage: { tokens_in: call.usage.tokens_in, tokens_out: call.usage.tokens_out, cost_usd: call.usage.cost_usd, llm_calls: call.usage.llm_calls },
        estimated: call.estimated,
        started_at: call.started_at,
        latency_ms: call.latency_ms,
        tries: call.tries,
        waits_ms: [...call.waits_ms],
        replayed: call.replayed,
      },
    ]);
  }
}
