import type { RedisClient } from '@tierflow/beads';
import { Job, type JobsOptions, type Queue } from 'bullmq';
import { bullmqFunction, bullmqScript } from './bullmq-lua.js';
import { lockLostOr, runWritesLua, type FencedBatch } from './fenced-batch.js';
import { runScript, type RedisScript } from './scripts.js';

/** The BullMQ scripts a round may call: the adds BullMQ picks from a job's options, then the parent's park. */
const CALLED = ['addStandardJob', 'addPrioritizedJob', 'addDelayedJob', 'moveToWaitingChildren'] as const;
type Called = (typeof CALLED)[number];

/**
 * A delegating pass's commit, its children's adds and its park, in one call. Each BullMQ script
 * is the installed version's source run as a function whose parameters stand in for KEYS and ARGV.
 *   KEYS[1]           the parent job's lock key
 *   KEYS[2..k-1]      the keys the writes touch (FencedBatch's declared keys)
 *   KEYS[k..]         each BullMQ call's keys, in turn
 *   ARGV[1]           the pass's lock token
 *   ARGV[2]           k
 *   ARGV[3]           c: how many BullMQ calls
 *   ARGV[4..3+3c]     each call's script name, key count and argument count
 *   then              each call's arguments, in turn
 *   then              the writes, in runWritesLua's form
 *   ARGV[#ARGV]       where the writes start
 * Returns the calls' results and the writes' replies, or LOCK_LOST having done nothing. A call
 * that answers a negative code (BullMQ's errors) ends the script: `failed`, the replies, the
 * code and which call (from 1).
 */
const SEND_ROUND: RedisScript = {
  lua: `
${CALLED.map(bullmqFunction).join('\n')}
local BULLMQ = { ${CALLED.map((name) => `${name} = ${name}`).join(', ')} }
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LOCK_LOST') end
local writesAt = tonumber(ARGV[#ARGV])
${runWritesLua('writesAt', '#ARGV - 1')}
local calls = tonumber(ARGV[3])
local keyAt, argAt = tonumber(ARGV[2]), 4 + 3 * calls
local results = {}
for i = 0, calls - 1 do
  local name, keyCount, argCount = ARGV[4 + 3 * i], tonumber(ARGV[5 + 3 * i]), tonumber(ARGV[6 + 3 * i])
  local result = BULLMQ[name]({unpack(KEYS, keyAt, keyAt + keyCount - 1)}, {unpack(ARGV, argAt, argAt + argCount - 1)})
  if type(result) == 'number' and result < 0 then return {'failed', replies, result, i + 1} end
  results[#results + 1] = result
  keyAt, argAt = keyAt + keyCount, argAt + argCount
end
return {results, replies}`,
};

/** A child job as BullMQ's Queue.add takes it. */
export interface ChildJob {
  readonly name: string;
  readonly data: unknown;
  readonly opts: JobsOptions & { readonly jobId: string };
}

interface Call {
  readonly name: Called;
  readonly keys: readonly string[];
  readonly args: readonly (string | number | Buffer)[];
}

/** What a round's script did: whether the parent now waits for its children, and the writes' replies. */
export interface RoundReply {
  readonly parked: boolean;
  readonly replies: readonly unknown[];
}

/**
 * Sends a delegating pass's round in one script: its fenced writes (the round's step state, audit
 * entries, Beads writes), the child jobs as BullMQ adds them, and the parent's move to
 * waiting-children. Three kinds of call became one, and a crash can no longer leave a round
 * recorded with some of its children missing. BullMQ's own argument builders make each call's
 * keys and arguments, so the jobs are the ones `Queue.add` would have added.
 */
export class RoundSender {
  constructor(
    private readonly redis: RedisClient,
    /** The parent's own queue, whose backend builds the park's arguments. */
    private readonly own: Queue,
  ) {}

  /**
   * @throws LockLostError when the pass no longer holds its job; nothing was done.
   */
  async send(batch: FencedBatch, lock: { readonly jobId: string; readonly key: string; readonly token: string }, lower: Queue, children: readonly ChildJob[]): Promise<RoundReply> {
    const calls = await Promise.all(children.map((child) => addCall(lower, child)));
    const park = this.own.backend.moveToWaitingChildrenArgs(lock.jobId, lock.token, {});
    calls.push(split('moveToWaitingChildren', park));
    const writes = batch.scriptForm(2, false);
    const header = calls.flatMap((call) => [call.name, call.keys.length, call.args.length]);
    const args = [lock.token, 2 + writes.keys.length, calls.length, ...header, ...calls.flatMap((call) => call.args)];
    let result: unknown;
    try {
      result = await runScript(this.redis, SEND_ROUND, [lock.key, ...writes.keys, ...calls.flatMap((call) => call.keys)], [...args, ...writes.words, args.length + 1]);
    } catch (error) {
      throw lockLostOr(error, lock.jobId);
    }
    const [results, replies, code, at] = result as [unknown[] | 'failed', unknown[], number, number];
    if (results === 'failed') {
      const failed = calls[at - 1]!;
      const backend = failed.name === 'moveToWaitingChildren' ? this.own.backend : lower.backend;
      throw backend.finishedErrors({ code, jobId: lock.jobId, command: failed.name, state: 'active' });
    }
    // moveToWaitingChildren answers 0 when it parked the job, 1 when no child is pending.
    return { parked: results.at(-1) === 0, replies };
  }
}

/** The add `Queue.add` would send for `child`, built by BullMQ and caught before it is sent. */
async function addCall(queue: Queue, child: ChildJob): Promise<Call> {
  let call: Call | undefined;
  const catcher = {
    runCommand(command: string, args: (string | number | Buffer)[]): Promise<string> {
      call = split(command.slice(0, command.indexOf(':')) as Called, args);
      return Promise.resolve(child.opts.jobId);
    },
  };
  const opts = { ...queue.jobsOpts, ...child.opts };
  const job = new Job(queue, child.name, child.data, opts, opts.jobId);
  const parent = job.parentKey ? { parentKey: job.parentKey, parentDependenciesKey: `${job.parentKey}:dependencies` } : {};
  const entry = job.toFlowEntry(parent);
  await queue.backend.addJobToTransaction(catcher as never, entry.jobData, entry.jobId, entry.parentKeyOpts);
  if (!call) throw new Error(`BullMQ added ${child.opts.jobId} without a script call`);
  return call;
}

function split(name: Called, keysAndArgs: readonly (string | number | Buffer)[]): Call {
  if (!CALLED.includes(name)) throw new Error(`a round cannot send BullMQ's ${name}`);
  const keyCount = bullmqScript(name).keys;
  return { name, keys: keysAndArgs.slice(0, keyCount).map(String), args: keysAndArgs.slice(keyCount) };
}
