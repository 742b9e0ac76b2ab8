import { ROOT_CONTEXT } from '@opentelemetry/api';
/**
 * Testing a tier policy without Redis: an in-memory Beads that enforces the tier's write
 * permissions, a {@link TierContext} around it with a pinned clock, and {@link settle}, which hands
 * a delegate step's children back as the runtime would.
 *
 * ```ts
 * import { FakeBeads, delegationTo, fakeContext, settle } from '@tierflow/runtime/testing';
 *
 * const beads = new FakeBeads('ROUTING_DISPATCHER');
 * const assignment = delegationTo('ROUTING_DISPATCHER', 'root-1.0-0.0-0', { task_type: 'decompose', objective: 'x' });
 * const step = await myPolicy.start(fakeContext(assignment, beads));
 * const round = settle(assignment, 'ROUTING_DISPATCHER', step, 0, () => ({ status: 'success', summary: 'ok', confidence: 0.9 }));
 * const next = await myPolicy.resume!(fakeContext(assignment, beads), round);
 * ```
 */
import { beadsRef, checkWrite, parseBeadsKey, type AddDecayedOptions, type Beads, type BeadsEntry, type BeadsSetOptions } from '@tierflow/beads';
import { addToSums, decayedSumsSchema } from '@tierflow/core';
import {
  delegationPayloadSchema,
  resolveErrorPolicy,
  tierAbove,
  tierBelow,
  TierflowError,
  type DelegationPayloadInput,
  type JsonObject,
  type OutcomePayloadInput,
  type TierName,
} from '@tierflow/protocol';
import type { Assignment, SettledChild, SettledRound, Step, TierContext } from '../policy/handler.js';
import type { RunNode } from '../audit/run-tree-merge.js';
import { UNMETERED } from '../budget/usage-meter.js';
import { UNRECORDED_CALLS } from '../policy/model-calls.js';
import { childMessageId, rootIdOf } from '../messages/ids.js';
import { buildDelegation, buildOutcome } from '../messages/messages.js';

/** 2023-11-14T22:13:20Z: the clock every fake context shows. */
export const FIXED_NOW = 1_700_000_000_000;

/** Beads in memory, checking the tier's write permission like the real store; values round-trip through JSON. */
export class FakeBeads implements Beads {
  readonly values = new Map<string, unknown>();
  /** Each call to set or setMany, in order, as the batch of entries it wrote (`ttlMs` only when given). */
  readonly writes: { key: string; value: unknown; ttlMs?: number | null }[][] = [];

  constructor(readonly tier: TierName) {}

  get<T = unknown>(key: string): Promise<T | null> {
    return Promise.resolve((this.values.get(parseBeadsKey(key).key) as T | undefined) ?? null);
  }

  getMany<T = unknown>(keys: readonly string[]): Promise<(T | null)[]> {
    return Promise.all(keys.map((key) => this.get<T>(key)));
  }

  set(key: string, value: unknown, options: BeadsSetOptions = {}): Promise<void> {
    return this.setMany([{ key, value, ...options }]);
  }

  // async, like the real store's: a refused write rejects rather than throws.
  async setMany(entries: readonly BeadsEntry[]): Promise<void> {
    await Promise.resolve();
    const batch = entries.map((entry) => ({
      key: checkWrite(this.tier, entry.key).key,
      value: JSON.parse(JSON.stringify(entry.value)) as unknown,
      ...(entry.ttlMs === undefined ? {} : { ttlMs: entry.ttlMs }),
    }));
    for (const { key, value } of batch) this.values.set(key, value);
    this.writes.push(batch);
  }

  /** Each decayed add, in order. Made as the store's script makes it; a value other than decayed sums is left alone. */
  readonly adds: { key: string; increments: Record<string, number>; options: AddDecayedOptions }[] = [];

  async addDecayed(key: string, increments: Readonly<Record<string, number>>, options: AddDecayedOptions): Promise<void> {
    await Promise.resolve();
    const checked = checkWrite(this.tier, key).key;
    this.adds.push({ key: checked, increments: { ...increments }, options });
    const stored = this.values.get(checked);
    const parsed = stored === undefined ? null : decayedSumsSchema.safeParse(stored);
    if (parsed && !parsed.success) return;
    this.values.set(checked, JSON.parse(JSON.stringify(addToSums(parsed?.data ?? null, increments, options.now, options.halfLifeMs))) as unknown);
  }

  async setIfAbsent(key: string, value: unknown, options: BeadsSetOptions = {}): Promise<boolean> {
    if (this.values.has(checkWrite(this.tier, key).key)) return false;
    await this.set(key, value, options);
    return true;
  }

  async delete(key: string): Promise<boolean> {
    await Promise.resolve();
    return this.values.delete(checkWrite(this.tier, key).key);
  }

  exists(key: string): Promise<boolean> {
    return Promise.resolve(this.values.has(parseBeadsKey(key).key));
  }

  /** The keys matching a glob of `*` and `?`, sorted. */
  keys(pattern: string): Promise<string[]> {
    const glob = parseBeadsKey(pattern)
      .key.replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    const match = new RegExp(`^${glob}$`);
    return Promise.resolve([...this.values.keys()].filter((key) => match.test(key)).sort());
  }

  ref(key: string): string {
    return beadsRef(key);
  }
}

/** An assignment as the tier above would send it, through the runtime's own message builder. */
export function delegationTo(tier: TierName, id: string, payload: DelegationPayloadInput): Assignment {
  const message = buildDelegation(tierAbove(tier)!, id, null, payload, FIXED_NOW);
  return { id, rootId: rootIdOf(id), payload: message.payload, message };
}

/** An assignment for the Monitor: a root objective, which reaches it from outside the tiers (no message). */
export function rootAssignment(rootId: string, payload: Pick<DelegationPayloadInput, 'objective' | 'constraints' | 'priority' | 'timeout_ms' | 'task_data' | 'deadline_hint'>): Assignment {
  return { id: rootId, rootId, payload: delegationPayloadSchema.parse({ ...payload, task_type: 'objective' }), message: null };
}

/** A context whose Beads live in memory and whose clock is `now` (pinned at {@link FIXED_NOW} by default). */
export function fakeContext(assignment: Assignment, beads: FakeBeads, now: () => number = () => FIXED_NOW): TierContext {
  return {
    tier: beads.tier,
    assignment,
    attempt: 1,
    redelivered: false,
    maxAttempts: 3,
    signal: new AbortController().signal,
    answerBy: null,
    waitedMs: 0,
    errorPolicy: resolveErrorPolicy(assignment.payload.error_policy),
    beads,
    log: { info: () => undefined, warn: () => undefined },
    traceContext: ROOT_CONTEXT,
    now,
    usage: UNMETERED,
    calls: UNRECORDED_CALLS,
    progress: () => undefined,
  };
}

/** What a fake child answers (checked field by field: an Omit over the loose payload type would check nothing). */
export type OutcomeReply = Pick<OutcomePayloadInput, 'status' | 'summary' | 'confidence' | 'result_refs' | 'resources_used' | 'error_type' | 'error_detail' | 'recoverable' | 'artifacts'>;

/**
 * Settles a delegate step's children as the runtime would hand them back: ids from the parent's
 * id and the round, requests parsed, outcomes built and validated, the memo through JSON.
 * `order` lists child indices in completion order (default: as delegated).
 */
export function settle(
  parent: Assignment,
  tier: TierName,
  step: Step,
  round: number,
  reply: (request: SettledChild['request'], index: number) => OutcomeReply,
  order?: readonly number[],
): SettledRound {
  if (step.kind !== 'delegate') throw new TierflowError('expected a delegate step', { code: 'unexpected_step' });
  const children = step.children.map((draft, index): SettledChild => {
    const id = childMessageId(parent.id, round, index);
    const request = delegationPayloadSchema.parse(draft);
    return { id, index, request, outcome: buildOutcome(tierBelow(tier)!, id, reply(request, index), 10, FIXED_NOW) };
  });
  const ordered = order ? order.map((index) => children[index]!) : children;
  return { round, strategy: step.strategy, children: ordered, memo: JSON.parse(JSON.stringify(step.memo ?? {})) as JsonObject };
}

/** The step, asserted to be a delegation. */
export function delegated(step: Step): Extract<Step, { kind: 'delegate' }> {
  if (step.kind !== 'delegate') throw new TierflowError(`expected a delegate step, got ${step.kind}`, { code: 'unexpected_step' });
  return step;
}

/** The outcome of a step, asserted to be an outcome. */
export function reported(step: Step): Extract<Step, { kind: 'outcome' }>['outcome'] {
  if (step.kind !== 'outcome') throw new TierflowError(`expected an outcome step, got ${step.kind}`, { code: 'unexpected_step' });
  return step.outcome;
}

export { learningRecord } from './learning-record.js';
export { memoryKeySet } from './keys.js';
export type { MemoryKeySet } from './keys.js';

/** A node of a run's tree as `tierflow status --json` gives it: a Fleet leaf that succeeded with `sim`, unless `overrides` say otherwise. */
export function runNode(id: string, overrides: Partial<RunNode> = {}): RunNode {
  return {
    id,
    tier: 'SPECIALIZED_FLEET',
    task_type: 'general',
    specialist: 'sim',
    status: 'success',
    source: 'outcome',
    queue_state: 'completed',
    confidence: 0.9,
    usage: null,
    progress: null,
    attempts: 1,
    started_at: null,
    finished_at: null,
    children: [],
    ...overrides,
  };
}
