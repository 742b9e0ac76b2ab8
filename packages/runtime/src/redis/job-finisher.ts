import type { RedisClient } from '@tierflow/beads';
import { createRedisBackend, raw2NextJobData, type BackendFactory, type RedisQueueBackend } from 'bullmq';
import { bullmqFunction } from './bullmq-lua.js';
import { runWritesLua, type FencedBatch } from './fenced-batch.js';
import { runScript, type RedisScript } from './scripts.js';

/**
 * BullMQ's own `moveToFinished`, the installed version's source, run as a function, then a pass's
 * writes once it has succeeded: a job's completion and everything its answering pass records
 * (de-duplication record, audit entries, Beads writes, the step state let go of) in one call.
 *   KEYS[1..14]  BullMQ's keys for moveToFinished, in its order
 *   KEYS[15..]   the keys the writes touch (as FencedBatch declares them)
 *   ARGV[1..n]   BullMQ's arguments for moveToFinished, in its order; its own check of the lock
 *                token among them fences the writes as FencedBatch's check does
 *   ARGV[n+1..]  the writes, in FencedBatch's form (runWritesLua)
 *   ARGV[#ARGV-1] where among BullMQ's arguments the return value is, when a write refers to it; else 0
 *   ARGV[#ARGV]  n + 1: where the writes start
 * Returns what moveToFinished returns: a negative code having written nothing of the pass's, or
 * 0 or the next job to run, the writes made.
 */
const FINISH_WITH_WRITES: RedisScript = {
  lua: `
${bullmqFunction('moveToFinished')}
local result = moveToFinished(KEYS, ARGV)
if type(result) == 'number' and result < 0 then return result end
local returned = ARGV[tonumber(ARGV[#ARGV - 1])]
${runWritesLua('tonumber(ARGV[#ARGV])', '#ARGV - 2', 'returned')}
return result`,
};

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

  constructor(private readonly redis: RedisClient) {}

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
      return this.complete(backend, held, job.id!, args, text);
    };
    return backend;
  };

  private async complete(
    backend: RedisQueueBackend,
    held: Held,
    jobId: string,
    bullmqArgs: readonly unknown[],
    recordedText: string | null,
  ): Promise<{ result: void | unknown[]; finishedOn: number }> {
    const keyCount = backend.moveToFinishedKeys.length;
    const keys = bullmqArgs.slice(0, keyCount).map(String);
    // An absent argument (fields to update, when completing) goes as the empty string BullMQ's client sends for it.
    const args = bullmqArgs.slice(keyCount).map((arg) => (arg === undefined ? '' : (arg as string | number | Buffer)));
    const returnedAt = recordedText === null ? 0 : args.indexOf(recordedText) + 1;
    const writes = held.batch.scriptForm(keys.length + 1, returnedAt > 0);
    // Kept until the script has run: BullMQ calls again after a connection error, and the writes must go with it.
    const result = await runScript(this.redis, FINISH_WITH_WRITES, [...keys, ...writes.keys], [...args, ...writes.words, returnedAt, args.length + 1]);
    this.held.delete(jobId);
    if (typeof result === 'number' && result < 0) throw backend.finishedErrors({ code: result, jobId, command: 'moveToFinished', state: 'active' });
    return { result: result === undefined ? undefined : (raw2NextJobData(result as never) as unknown[]), finishedOn: Number(bullmqArgs[keyCount + 1]) };
  }
}
