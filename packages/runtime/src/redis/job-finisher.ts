import type { RedisClient } from '@tierflow/beads';
import { createRedisBackend, raw2NextJobData, type BackendFactory, type Job, type RedisQueueBackend } from 'bullmq';
import { bullmqFunction } from './bullmq-lua.js';
import { runWritesLua, type FencedBatch } from './fenced-batch.js';
import { FOREIGN_CHILDREN_LUA, type ParentRef } from './foreign-children.js';
import { runScript, type RedisScript } from './scripts.js';

/**
 * BullMQ's own `moveToFinished`, the installed version's source, run as a function, then a pass's
 * writes once it has succeeded: a job's completion and everything its answering pass records
 * (de-duplication record, audit entries, Beads writes, the step state let go of) in one call.
 * Around it, a parent counts only the children it sent (see foreign-children.ts): before, a
 * parent's dependencies lose what it did not send, which BullMQ would otherwise refuse to
 * complete it for; after, the job's own parent, if nothing of its own is left pending but other
 * jobs name it, is moved on.
 *   KEYS[1..14]  BullMQ's keys for moveToFinished, in its order (KEYS[12] the job's key)
 *   KEYS[15..]   the keys the writes touch (as FencedBatch declares them)
 *   ARGV[1..n]   BullMQ's arguments for moveToFinished, in its order; its own check of the lock
 *                token among them fences the writes as FencedBatch's check does
 *   ARGV[n+1..]  the writes, in FencedBatch's form (runWritesLua)
 *   ARGV[#ARGV-6] the set of the children this job sent, or '' (a job of the Fleet)
 *   ARGV[#ARGV-5] its parent's job key, ARGV[#ARGV-4] the set of the children the parent sent,
 *                ARGV[#ARGV-3] the parent's queue key, ARGV[#ARGV-2] its id: all '' without one.
 *                Undeclared: the parent's set is another tier's, which this tier may only read
 *   ARGV[#ARGV-1] where among BullMQ's arguments the return value is, when a write refers to it; else 0
 *   ARGV[#ARGV]  n + 1: where the writes start
 * Returns what moveToFinished returns: a negative code having written nothing of the pass's, or
 * 0 or the next job to run, the writes made.
 */
const FINISH_WITH_WRITES: RedisScript = {
  lua: `
${FOREIGN_CHILDREN_LUA}
${bullmqFunction('moveToFinished')}
local n = #ARGV
if ARGV[n - 6] ~= '' then dropForeignChildren(KEYS[12] .. ':dependencies', ARGV[n - 6]) end
local result = moveToFinished(KEYS, ARGV)
if type(result) == 'number' and result < 0 then return result end
local returned = ARGV[tonumber(ARGV[n - 1])]
${runWritesLua('tonumber(ARGV[n])', 'n - 7', 'returned')}
-- ARGV[2]: BullMQ's timestamp of this completion.
if ARGV[n - 5] ~= '' then releaseFromForeignChildren(ARGV[n - 5], ARGV[n - 4], ARGV[n - 3], ARGV[n - 2], ARGV[2]) end
return result`,
};

/** What a completion reads of its job to find its family: the job a Worker completes is a full Job. */
export type FamilyJob = Pick<Job, 'id'> & Partial<Pick<Job, 'parent' | 'parentKey'>>;

/** The sets of sent children a job's completion looks at: its own (as a parent) and its parent's. */
export interface Family {
  /** The set of the children the job sent, or null for a tier that sends none. */
  readonly ownChildren: string | null;
  readonly parent: ParentRef | null;
}

const NO_FAMILY: Family = { ownChildren: null, parent: null };

interface Held {
  readonly token: string;
  readonly batch: FencedBatch;
}

/**
 * Completes jobs together with their answering pass's writes. A pass holds its writes here and
 * returns its outcome; when BullMQ moves the job to completed, the Worker's backend (built by
 * {@link backendFactory}) sends one script that does both. That is one round trip and one
 * script call fewer per answered job than writing first and completing after, and the job never
 * stands answered-but-not-completed, the window a crash could leave before.
 */
export class JobFinisher {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly redis: RedisClient,
    /** A job's family, as its completion must see it; none by default. */
    private readonly familyOf: (job: FamilyJob) => Family = () => NO_FAMILY,
  ) {}

  /** Holds `batch` until BullMQ completes job `jobId` with `token` (the pass's lock). */
  hold(jobId: string, token: string, batch: FencedBatch): void {
    this.held.set(jobId, { token, batch });
  }

  /** Lets go of what a pass held that will not be completed (its job ended another way). */
  drop(jobId: string): void {
    this.held.delete(jobId);
  }

  /** How many passes' writes wait for their job's completion. */
  get size(): number {
    return this.held.size;
  }

  /** BullMQ's Redis backend, completing the jobs that hold writes here with them. */
  readonly backendFactory: BackendFactory<RedisQueueBackend> = (name, opts, flags) => {
    const backend = createRedisBackend(name, opts, flags);
    const complete = backend.moveToCompleted.bind(backend);
    backend.moveToCompleted = (job, returnValue, removeOnComplete, token, fetchNext) => {
      const held = job.id === undefined ? undefined : this.held.get(job.id);
      if (!held || held.token !== token) return complete(job, returnValue, removeOnComplete, token, fetchNext);
      // BullMQ's own moveToCompleted hands its args builder the value as JSON text, as here; a
      // batch that records the same value has that text already.
      const recorded = held.batch.returnValue;
      const text = recorded !== null && recorded.value === returnValue ? recorded.text : null;
      const args = backend.moveToCompletedArgs(job, (text ?? JSON.stringify(returnValue)) as never, removeOnComplete, token, fetchNext);
      return this.complete(backend, held, job.id!, args, text, this.familyOf(job as FamilyJob));
    };
    return backend;
  };

  private async complete(
    backend: RedisQueueBackend,
    held: Held,
    jobId: string,
    bullmqArgs: readonly unknown[],
    recordedText: string | null,
    family: Family,
  ): Promise<{ result: void | unknown[]; finishedOn: number }> {
    const keyCount = backend.moveToFinishedKeys.length;
    const keys = bullmqArgs.slice(0, keyCount).map(String);
    // An absent argument (fields to update, when completing) goes as the empty string BullMQ's client sends for it.
    const args = bullmqArgs.slice(keyCount).map((arg) => (arg === undefined ? '' : (arg as string | number | Buffer)));
    const returnedAt = recordedText === null ? 0 : args.indexOf(recordedText) + 1;
    const writes = held.batch.scriptForm(keys.length + 1, returnedAt > 0);
    // Kept until the script has run: BullMQ calls again after a connection error, and the writes must go with it.
    const { ownChildren, parent } = family;
    const familyWords = [ownChildren ?? '', parent?.key ?? '', parent?.ownChildren ?? '', parent?.queueKey ?? '', parent?.id ?? ''];
    const result = await runScript(this.redis, FINISH_WITH_WRITES, [...keys, ...writes.keys], [...args, ...writes.words, ...familyWords, returnedAt, args.length + 1]);
    this.held.delete(jobId);
    if (typeof result === 'number' && result < 0) throw backend.finishedErrors({ code: result, jobId, command: 'moveToFinished', state: 'active' });
    return { result: result === undefined ? undefined : (raw2NextJobData(result as never) as unknown[]), finishedOn: Number(bullmqArgs[keyCount + 1]) };
  }
}
