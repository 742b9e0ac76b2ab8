import type { OutcomePayload, TierSlug } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { ControlKeys } from '../redis/keys.js';
import { runScript, type RedisScript } from '../redis/scripts.js';
import type { Party } from '../security/party.js';
import type { RunStatus } from '../status/run-status.js';
import { BUDGET_FIELDS, clientFacts, finalFacts, indexedRun, nodeFacts, type Hash, type IndexedRun } from './run-facts.js';
import { filtersTree, matchesFacts, matchesStatus, type RunFilter } from './run-filter.js';
import { isAfter, type CellPage, type RunPosition } from './run-cursor.js';

/*
 * The run index of one cell (docs/operations.md#finding-runs): its writes, which ride on writes
 * the client and the tiers make anyway, and the reading of one page.
 */

/**
 * Enters a root in its cell's run index, as the client enqueues it: one script, so the client
 * sends one command beside the root's job.
 *   KEYS[1]  the cell's run index (a sorted set of root ids by submission, ms)
 *   KEYS[2]  the client's facts of the root (a hash: run-facts.ts)
 *   ARGV[1]  the root id       ARGV[2]  when it was submitted (ms)
 *   ARGV[3]  the retention (ms), the facts' TTL
 *   ARGV[4]  the oldest submission still retained (ms): members before it are trimmed
 *   ARGV[5..] the facts' field-value pairs
 */
const INDEX_ROOT: RedisScript = {
  lua: `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1`,
};

/** Indexes a root as the client enqueues it, trimming roots past retention as it writes. */
export async function indexRoot(
  redis: RedisClient,
  keys: ControlKeys,
  root: { readonly rootId: string; readonly objective: string; readonly submittedAt: number; readonly ttlMs: number },
): Promise<void> {
  const facts = clientFacts(root.objective, root.submittedAt);
  await runScript(redis, INDEX_ROOT, [keys.runIndex, keys.runFacts('client', root.rootId)], [root.rootId, root.submittedAt, root.ttlMs, root.submittedAt - root.ttlMs, ...facts]);
}

/** Takes an enqueue that failed back out of the index. */
export async function unindexRoot(redis: RedisClient, keys: ControlKeys, rootId: string): Promise<void> {
  await redis.multi().zrem(keys.runIndex, rootId).del(keys.runFacts('client', rootId)).exec();
}

/** The writes of a pass's batch (engine/answer.ts's FencedBatch). */
export interface IndexWrites {
  hset(key: string, ...fieldValues: string[]): unknown;
  pexpire(key: string, milliseconds: number): unknown;
}

/** What a node's answer adds to its run's index. */
export interface IndexedAnswer {
  readonly rootId: string;
  readonly taskType: string;
  readonly outcome: Pick<OutcomePayload, 'status' | 'error_type' | 'resources_used'>;
  /** The root's own answer (the Monitor's, to the client): its final status goes in too. */
  readonly final: boolean;
  readonly now: number;
  readonly ttlMs: number;
  /** How long the run's budget hash, which `tierflow runs` reads tokens and cost from, is kept once the run ends. */
  readonly budgetTtlMs: number;
}

/**
 * Adds a node's answer to its run's index, on the batch that sends it: one HSET and one PEXPIRE of
 * the party's hash; the root's answer also keeps the run's budget as long as the index.
 */
export function indexAnswer(batch: IndexWrites, keys: ControlKeys, party: TierSlug, answer: IndexedAnswer): void {
  const key = keys.runFacts(party, answer.rootId);
  batch.hset(key, ...nodeFacts(answer.taskType, answer.outcome), ...(answer.final ? finalFacts(answer.outcome, answer.now) : []));
  batch.pexpire(key, answer.ttlMs);
  if (answer.final) batch.pexpire(keys.budget(answer.rootId), answer.budgetTtlMs);
}

/** A run of a page, where it stands, and its status. */
export interface FoundRun extends RunPosition {
  readonly run: IndexedRun;
  readonly status: RunStatus;
  /** BullMQ's state of its root job, for debugging: `completed` once it answered, else as read. */
  readonly queueState: string;
}

/** The status of runs that have not answered, from their root jobs: by root id (a root with no job left is left out). */
export type LiveStatuses = (rootIds: readonly string[]) => Promise<ReadonlyMap<string, { readonly status: RunStatus; readonly queueState: string }>>;

export interface PageRequest {
  readonly filter: RunFilter;
  /** List what comes after this position. */
  readonly after: RunPosition | null;
  readonly limit: number;
  /** Now, and the index's retention: older members are past it, whether trimmed yet or not. */
  readonly now: number;
  readonly ttlMs: number;
  readonly live: LiveStatuses;
  /** How many runs to look at, at most, before handing back a short page and where to go on. */
  readonly scanLimit?: number;
  /** How many runs one read of the index takes. */
  readonly chunk?: number;
}

const CHUNK = 200;
const SCAN_LIMIT = 5_000;
/** The Monitor first: its hash holds the final outcome. */
const TIERS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

/**
 * One page of a cell's runs, latest first: read from the index a chunk at a time (each chunk's
 * records in one pipeline), kept when they pass `filter`, until `limit` are found, the index ends,
 * or `scanLimit` runs were looked at. `empty` says the cell's index holds nothing in the range
 * asked (a deployment that wrote none yet, say).
 */
export async function readIndexPage(redis: RedisClient, keys: ControlKeys, request: PageRequest): Promise<CellPage<FoundRun> & { readonly empty: boolean }> {
  const { filter, after, limit } = request;
  const scanLimit = request.scanLimit ?? SCAN_LIMIT;
  const chunkSize = request.chunk ?? CHUNK;
  const max = Math.min(after?.at ?? Infinity, filter.until ?? Infinity);
  const min = Math.max(filter.since ?? 0, request.now - request.ttlMs);
  const found: FoundRun[] = [];
  let examined = 0;
  let offset = 0;
  for (;;) {
    const reply = await redis.zrevrangebyscore(keys.runIndex, max === Infinity ? '+inf' : max, min, 'WITHSCORES', 'LIMIT', offset, chunkSize);
    const entries: RunPosition[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2) entries.push({ id: reply[index]!, at: Number(reply[index + 1]) });
    offset += entries.length;
    if (offset === 0) return { runs: [], frontier: null, empty: true };
    const chunk = entries.filter((entry) => isAfter(entry, after));
    const runs = await readRuns(redis, keys, chunk, filtersTree(filter));
    const passing = new Set(runs.filter((run) => matchesFacts(run, filter)));
    const live = await request.live([...passing].filter((run) => run.final === null).map((run) => run.rootId));
    for (const [index, run] of runs.entries()) {
      examined++;
      const position = chunk[index]!;
      if (!passing.has(run)) continue;
      const status = run.final?.status ?? live.get(run.rootId)?.status ?? 'missing';
      if (!matchesStatus(status, filter)) continue;
      found.push({ ...position, run, status, queueState: run.final ? 'completed' : (live.get(run.rootId)?.queueState ?? 'unknown') });
      if (found.length === limit) return { runs: found, frontier: position, empty: false };
    }
    if (entries.length < chunkSize) return { runs: found, frontier: null, empty: false };
    if (examined >= scanLimit) return { runs: found, frontier: chunk.at(-1) ?? entries.at(-1)!, empty: false };
  }
}

/** The records of these runs, in one pipeline: the client's, the Monitor's (every tier's with `tree`), and the budget's counters. */
async function readRuns(redis: RedisClient, keys: ControlKeys, positions: readonly RunPosition[], tree: boolean): Promise<IndexedRun[]> {
  if (positions.length === 0) return [];
  const parties: Party[] = ['client', ...(tree ? TIERS : ['monitor' as const])];
  const pipeline = redis.pipeline();
  for (const { id } of positions) {
    for (const party of parties) pipeline.hgetall(keys.runFacts(party, id));
    pipeline.hmget(keys.budget(id), ...BUDGET_FIELDS);
  }
  const replies = (await pipeline.exec()) ?? [];
  const per = parties.length + 1;
  return positions.map(({ id, at }, index) => {
    const reply = (offset: number): unknown => {
      const [error, value] = replies[index * per + offset] ?? [null, null];
      return error ? null : value;
    };
    const hash = (offset: number): Hash => {
      const value = reply(offset);
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Hash) : {};
    };
    const budget = reply(per - 1);
    const tiers = parties.slice(1).map((_, tier) => hash(tier + 1));
    return indexedRun(id, at, {
      client: hash(0),
      monitor: tiers[0]!,
      tiers: tree ? tiers : null,
      budget: Array.isArray(budget) ? budget.map((value) => (typeof value === 'string' ? value : null)) : [],
    });
  });
}

/** The tokens and cost (USD) each of these runs spent, from their budget hashes, in one pipeline. */
export async function readSpending(redis: RedisClient, keys: ControlKeys, rootIds: readonly string[]): Promise<{ tokens: number; cost_usd: number }[]> {
  if (rootIds.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const id of rootIds) pipeline.hmget(keys.budget(id), ...BUDGET_FIELDS);
  const replies = (await pipeline.exec()) ?? [];
  return rootIds.map((id, index) => {
    const [error, value] = replies[index] ?? [null, null];
    const budget = !error && Array.isArray(value) ? value.map((field) => (typeof field === 'string' ? field : null)) : [];
    const run = indexedRun(id, 0, { client: {}, monitor: {}, tiers: null, budget });
    return { tokens: run.tokens, cost_usd: run.costUsd };
  });
}
