import type { RedisClient } from '@tierflow/beads';
import { isOutcome, TIER_SLUGS, TierflowError, validate, type TierName } from '@tierflow/protocol';
import { ReplyError } from 'ioredis';
import type { RunNode } from '../audit/run-tree-merge.js';
import { readRunTree } from '../audit/run-tree.js';
import { inFlightTtlMs } from '../config/retention.js';
import type { RuntimeOptions } from '../config/options.js';
import { rootObjectiveSchema, type RootObjective } from '../model/objective.js';
import { parseRecordEntries } from '../recording/node-record.js';
import type { RecordEntry } from '../recording/record-entry.js';
import { recordKey, rerunKeys } from '../redis/keys.js';
import { readStoredRecord } from '../redis/stored-record.js';
import type { PreparedRerun, RerunSource } from '../rerun/prepare-rerun.js';
import { RUN_EXPORT_FORMAT, RUN_EXPORT_VERSION, type RunExport } from '../rerun/run-export.js';
import type { SigningConfig } from '../security/signing-keys.js';

/**
 * What a client reads of a run to rerun or export it, and writes for a rerun
 * (docs/operations.md#rerun-fork-and-replay). Everything is read with the caller's own
 * connection: a rerun cannot reuse what its caller could not read (a refusal by Redis's ACL
 * stops it, it is not taken for an empty run).
 */

/** The most recording entries read of one run: as readRecording reads. */
const MAX_ENTRIES = 100_000;

/** How long a rerun's records and links are kept: while its run may still run, and as long as its recording. */
export function rerunTtlMs(runtime: Pick<RuntimeOptions, 'keepFinishedMs' | 'auditTtlMs'>): number {
  return Math.max(inFlightTtlMs(runtime), runtime.auditTtlMs);
}

/** The original run as its caller can read it, in `prefix` (its cell), with its root record. */
export async function readRerunSource(redis: RedisClient, prefix: string, rootId: string, signing: SigningConfig | null): Promise<RerunSource & { readonly root: RootObjective }> {
  const root = await readRootRecord(redis, prefix, rootId);
  const [entries, tree] = await Promise.all([readRecordEntries(redis, prefix, rootId), readRunTree(redis, prefix, rootId, signing)]);
  const nodes = tree ? treeNodes(tree) : [];
  const outcomes = await readOutcomes(redis, prefix, nodes);
  return { rootId, root, objective: root.objective, entries, outcomes, nodes: nodes.map((node) => node.id) };
}

/** A run in the exported format (rerun/run-export.ts). */
export async function exportRun(redis: RedisClient, prefix: string, rootId: string, signing: SigningConfig | null, now: number): Promise<RunExport> {
  const source = await readRerunSource(redis, prefix, rootId, signing);
  return {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    exported_at: new Date(now).toISOString(),
    root: source.root,
    outcomes: Object.fromEntries(source.outcomes),
    entries: [...source.entries],
  };
}

/** An exported run as a rerun's source. */
export function exportSource(run: RunExport): RerunSource {
  return { rootId: run.root.root_id, objective: run.root.objective, entries: run.entries, outcomes: new Map(Object.entries(run.outcomes)) };
}

/** The root record on the Monitor's queue. @throws TierflowError (code `root_not_found`) when it is not retained, or not a root record. */
async function readRootRecord(redis: RedisClient, prefix: string, rootId: string): Promise<RootObjective> {
  const data = await redis.hget(`${prefix}:${TIER_SLUGS.PROGRESS_MONITOR}:${rootId}`, 'data');
  if (data === null) throw TierflowError.permanent(`no run ${rootId} to rerun (unknown, or its root is past retention)`, { code: 'root_not_found' });
  const read = readStoredRecord(data, rootObjectiveSchema, { what: 'a root record' });
  if (!read.ok) throw TierflowError.permanent(`run ${rootId} cannot be rerun: its root record is not one (${read.reason})`, { code: 'root_not_found' });
  return read.value;
}

/** The run's recording as written, in order; none when the key holds something else. A refused read (the ACL) is thrown. */
async function readRecordEntries(redis: RedisClient, prefix: string, rootId: string): Promise<RecordEntry[]> {
  try {
    return parseRecordEntries(await redis.xrange(recordKey(prefix, rootId), '-', '+', 'COUNT', MAX_ENTRIES)).entries;
  } catch (error) {
    if (error instanceof ReplyError && (error as Error).message.startsWith('WRONGTYPE')) return [];
    throw error;
  }
}

function treeNodes(tree: RunNode): { id: string; tier: TierName }[] {
  return [{ id: tree.id, tier: tree.tier }, ...tree.children.flatMap(treeNodes)];
}

/** Each node's outcome as its job returned it (JSON, parsed), for the jobs still retained that completed with an outcome of their own. */
async function readOutcomes(redis: RedisClient, prefix: string, nodes: readonly { id: string; tier: TierName }[]): Promise<Map<string, unknown>> {
  if (nodes.length === 0) return new Map();
  const pipeline = redis.pipeline();
  for (const node of nodes) pipeline.hget(`${prefix}:${TIER_SLUGS[node.tier]}:${node.id}`, 'returnvalue');
  const answers = (await pipeline.exec()) ?? [];
  const outcomes = new Map<string, unknown>();
  nodes.forEach((node, index) => {
    const [error, text] = answers[index] ?? [null, null];
    if (error || typeof text !== 'string') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const parsed = validate(value);
    if (parsed.ok && isOutcome(parsed.value)) outcomes.set(node.id, value);
  });
  return outcomes;
}

/**
 * A rerun's records in its new root's cell (`prefix`), in one MULTI, before its root is
 * submitted: its spec, the answers it may replay and the outcomes it may reuse, each replacing
 * whatever was there, each kept {@link rerunTtlMs}.
 */
export async function writeRerunRecords(redis: RedisClient, prefix: string, rootId: string, prepared: PreparedRerun, ttlMs: number): Promise<void> {
  const keys = rerunKeys(prefix, rootId);
  const multi = redis.multi().set(keys.spec, JSON.stringify(prepared.spec), 'PX', ttlMs).del(keys.replay, keys.reuse);
  if (prepared.replay.size > 0) multi.hset(keys.replay, Object.fromEntries(prepared.replay)).pexpire(keys.replay, ttlMs);
  if (prepared.reuse.size > 0) multi.hset(keys.reuse, Object.fromEntries(prepared.reuse)).pexpire(keys.reuse, ttlMs);
  await execAll(multi);
}

/** The link from the original to its rerun, in the original's cell (`prefix`), once the rerun is submitted: one MULTI. */
export async function linkRerun(redis: RedisClient, prefix: string, of: string, rootId: string, ttlMs: number): Promise<void> {
  const key = rerunKeys(prefix, of).reruns;
  await execAll(redis.multi().sadd(key, rootId).pexpire(key, ttlMs));
}

/** The runs that rerun `rootId`, sorted; none when the key holds something else. */
export async function readReruns(redis: RedisClient, prefix: string, rootId: string): Promise<string[]> {
  try {
    return (await redis.smembers(rerunKeys(prefix, rootId).reruns)).sort();
  } catch (error) {
    if (error instanceof ReplyError && (error as Error).message.startsWith('WRONGTYPE')) return [];
    throw error;
  }
}

/** A MULTI's EXEC, failing when any of its commands failed. */
async function execAll(multi: ReturnType<RedisClient['multi']>): Promise<void> {
  const results = await multi.exec();
  if (results === null) throw TierflowError.retryable('a rerun record was not written: the transaction was aborted', { code: 'transient' });
  const failed = results.find(([error]) => error !== null);
  if (failed?.[0]) throw failed[0];
}
