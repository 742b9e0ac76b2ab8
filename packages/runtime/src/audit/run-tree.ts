import { isOutcome, TIER_SLUGS, tierBelow, validate, type TierName } from '@tierflow/protocol';
import { type Queue, type Job } from 'bullmq';
import { ReplyError } from 'ioredis';
import type { RedisClient } from '@tierflow/beads';
import { readAuditTrail } from './audit-read.js';
import type { AuditRecord } from './audit-entry.js';
import { QUEUE_OF } from '../messages/queues.js';
import { controlKeys } from '../redis/keys.js';
import { readProgress, type ProgressRecord } from '../progress/progress.js';
import { auditChildren, digestAudit, mergeRunTree, type JobFacts, type RunNode } from './run-tree-merge.js';
import { readRunWait, withWait } from '../questions/run-questions.js';
import { readRunBlocked, withBlockedWait } from '../questions/run-blocked.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { bullQueue } from '../redis/bull-queue.js';
import { partyOf } from '../security/party.js';

/**
 * Reads a run's tree: the delegations on its audit trail (every one a parent sent, with the
 * outcomes recorded for it) merged with the jobs still in the queues, found level by level
 * through the trail and each job's dependencies. One XRANGE, then the jobs of a level at once:
 * a few round trips per tier, whatever the tree's width. Null for a root neither knows.
 */
export async function readRunTree(redis: RedisClient, prefix: string, rootId: string, signing: SigningConfig | null = null): Promise<RunNode | null> {
  const queues = new Map<TierName, Queue>();
  const deferredMark = (tier: TierName, id: string): Promise<string | null> => redis.get(controlKeys(prefix).deferred(partyOf(tier), id));
  const queueOf = (tier: TierName): Queue => {
    let queue = queues.get(tier);
    if (!queue) queues.set(tier, (queue = bullQueue(QUEUE_OF[tier], redis, prefix)));
    return queue;
  };
  try {
    const [records, root, progress, wait, blocked] = await Promise.all([
      readTrail(redis, prefix, rootId),
      readJob(queueOf, deferredMark, 'PROGRESS_MONITOR', rootId),
      readRunProgress(redis, prefix, rootId),
      readRunWait(redis, prefix, rootId, signing).catch(() => null),
      readRunBlocked(redis, prefix, rootId, signing).catch(() => null),
    ]);
    const audit = digestAudit(records);
    const jobs = new Map<string, JobFacts>();
    if (root) jobs.set(rootId, root);
    let level = [rootId];
    for (let tier = tierBelow('PROGRESS_MONITOR'); tier && level.length > 0; tier = tierBelow(tier)) {
      const childTier = tier;
      const ids = [...new Set(level.flatMap((id) => [...auditChildren(audit, id, childTier), ...(jobs.get(id)?.children ?? [])]))];
      const facts = await Promise.all(ids.map((id) => readJob(queueOf, deferredMark, childTier, id)));
      ids.forEach((id, index) => {
        if (facts[index]) jobs.set(id, facts[index]);
      });
      level = ids;
    }
    const tree = mergeRunTree(rootId, audit, jobs, progress);
    return tree && withBlockedWait(withWait(tree, wait), blocked);
  } finally {
    // The queues share the caller's connection: closing them must not close it.
    await Promise.all([...queues.values()].map((queue) => queue.close()));
  }
}

/** Every job's latest progress in the run, from each tier's hash; a key that is not a hash holds none. */
async function readRunProgress(redis: RedisClient, prefix: string, rootId: string): Promise<Map<string, ProgressRecord>> {
  const keys = controlKeys(prefix);
  const hashes = await Promise.all(
    Object.values(TIER_SLUGS).map(async (slug) => {
      try {
        return await redis.hgetall(keys.progress(slug, rootId));
      } catch (error) {
        if (error instanceof ReplyError) return {};
        throw error;
      }
    }),
  );
  return new Map(hashes.flatMap((hash) => [...readProgress(hash)]));
}

/** The trail, or none where the key holds something else than a stream. */
async function readTrail(redis: RedisClient, prefix: string, rootId: string): Promise<AuditRecord[]> {
  try {
    return await readAuditTrail(redis, prefix, rootId);
  } catch (error) {
    if (error instanceof ReplyError) return [];
    throw error;
  }
}

const UNREADABLE: JobFacts = { state: 'unreadable', outcome: null, task_type: null, specialist_hint: null, attempts_made: 0, processed_on: null, finished_on: null, children: [] };

/**
 * A job's facts, null when it is not in the queue, {@link UNREADABLE} when its record does not
 * parse. A delayed job's deferred mark (`deferredMark`) tells a pass waiting off its worker from a retry.
 */
async function readJob(queueOf: (tier: TierName) => Queue, deferredMark: (tier: TierName, id: string) => Promise<string | null>, tier: TierName, id: string): Promise<JobFacts | null> {
  const below = tierBelow(tier);
  try {
    const job = await queueOf(tier).getJob(id);
    if (!job) return null;
    const [state, dependencies] = await Promise.all([job.getState(), below ? job.getDependencies() : null]);
    const facts = factsOf(job, state, below && dependencies ? childIds(dependencies, queueOf(below).qualifiedName) : []);
    // The mark names the attempt that deferred: an older one's is left from before a retry.
    return state === 'delayed' ? { ...facts, deferred: (await deferredMark(tier, id)) === String(facts.attempts_made + 1) } : facts;
  } catch (error) {
    // A job hash that is not one (WRONGTYPE), or data, options or a field that do not parse.
    if (error instanceof ReplyError || error instanceof SyntaxError || error instanceof TypeError) return UNREADABLE;
    throw error;
  }
}

function factsOf(job: Job, state: string, children: string[]): JobFacts {
  const payload = objectOr((objectOr(job.data) ?? {}).payload) ?? {};
  const returned = state === 'completed' ? validate(job.returnvalue) : null;
  return {
    state,
    outcome: returned?.ok && isOutcome(returned.value) ? returned.value : null,
    task_type: stringOr(payload.task_type),
    specialist_hint: stringOr(payload.specialist_hint),
    attempts_made: countOr(job.attemptsMade),
    processed_on: countOr(job.processedOn) || null,
    finished_on: countOr(job.finishedOn) || null,
    children,
  };
}

type Dependencies = Awaited<ReturnType<Job['getDependencies']>>;

/** Child job ids from a parent's dependencies. */
function childIds(dependencies: Dependencies, childQueueName: string): string[] {
  const keys = [...Object.keys(dependencies.processed ?? {}), ...(dependencies.unprocessed ?? []), ...Object.keys(dependencies.ignored ?? {}), ...(dependencies.failed ?? [])];
  return [...new Set(keys.filter((key) => key.startsWith(`${childQueueName}:`)).map((key) => key.slice(childQueueName.length + 1)))];
}

function objectOr(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function countOr(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
