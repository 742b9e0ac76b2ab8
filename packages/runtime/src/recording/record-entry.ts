import { usageSchema } from '@tierflow/protocol';
import { z } from 'zod';
import { TOOL_CALL_ENDS } from '../policy/tool-calls.js';

/**
 * One line of a run's recording: a stream per run, `<prefix>:record:<root id>`, one entry per
 * thing a node did, appended by the tier that did it (docs/operations.md#recording). Each is JSON
 * under one field; what a reader cannot parse is skipped and counted, never trusted.
 */

const node = z.string().min(1);
const tier = z.string().min(1);
const at = z.number().finite();
/** A recorded message, prompt or answer: the value (bounded), or its digest under `metadata`. */
const recorded = z.unknown();

/** The delegation as the node received it (the root objective made into one, at the Monitor), with the values its context references pointed at. */
export const delegationEntrySchema = z.object({
  kind: z.literal('delegation'),
  node,
  tier,
  at,
  attempt: z.int().positive(),
  message: recorded,
  /**
   * Each context reference's value when the node took the work up (null: gone), or, as written
   * since, `{ "$context": <sha256> }`: the value is in the run's `context` entry of that hash.
   */
  context: z.record(z.string(), recorded).default({}),
  /** `tierflow rerun --set` edits applied to it, as `path=json`. */
  edits: z.array(z.string()).default([]),
});

/** The outcome as the node sent it. */
export const outcomeEntrySchema = z.object({ kind: z.literal('outcome'), node, tier, at, message: recorded });

/** How a pass ended: answered, parked for its children, delayed for a person's answers, to be retried, or stopped by an error left to BullMQ (which runs the job again). */
export const PASS_ENDS = ['answered', 'parked', 'asked', 'deferred', 'retrying', 'errored'] as const;
export type PassEnd = (typeof PASS_ENDS)[number];

/** One pass (one run of a worker over the job): when, where, how it ended. */
export const passEntrySchema = z.object({
  kind: z.literal('pass'),
  node,
  tier,
  /** When the job was taken up, ms since the epoch. */
  started_at: at,
  ended_at: at,
  /** `<host>:<pid>` of the worker process. */
  worker: z.string(),
  /** BullMQ's delivery number: 1, then 2 on the first retry … */
  attempt: z.int().positive(),
  end: z.enum(PASS_ENDS),
  error: z.string().nullable().default(null),
  /** When the job was added to its queue (the delegation's timestamp), on the first pass: queued time is from then. */
  queued_at: at.nullable().default(null),
  /** Model calls of the pass past the most one pass records (recording/node-calls.ts): counted, not recorded. */
  calls_unrecorded: z.int().nonnegative().default(0),
});

/** One model call of the node (a specialist's or a planner's). */
export const callEntrySchema = z.object({
  kind: z.literal('call'),
  node,
  tier,
  purpose: z.enum(['specialist', 'planner']),
  endpoint: z.string(),
  model: z.string(),
  /** The request's messages and parameters (bounded), or their digest. */
  request: recorded,
  /** What identifies the request for replay: sha256 of its model, messages and parameters. */
  request_hash: z.string(),
  /** The answer `{ content, model, finish_reason }`, or its digest; null when the call failed. */
  answer: recorded.nullable(),
  error: z.string().nullable(),
  usage: usageSchema,
  estimated: z.boolean().default(false),
  started_at: at,
  latency_ms: z.number().nonnegative(),
  tries: z.int().nonnegative(),
  waits_ms: z.array(z.number().nonnegative()).default([]),
  replayed: z.boolean().default(false),
});

/** One tool call of the node (an LLM specialist's tool loop), however it ended: refused and denied ones too. */
export const toolEntrySchema = z.object({
  kind: z.literal('tool'),
  node,
  tier,
  name: z.string(),
  call_id: z.string(),
  /** `fleet:<specialist>`. */
  caller: z.string(),
  /** The arguments the tool got (bounded), or their digest. */
  arguments: recorded,
  /** What the model was handed back (bounded), or its digest. */
  result: recorded,
  /** Its size in bytes (UTF-8), whatever the recording keeps of it. */
  result_bytes: z.int().nonnegative(),
  end: z.enum(TOOL_CALL_ENDS),
  error: z.string().nullable().default(null),
  started_at: at,
  latency_ms: z.number().nonnegative(),
  /** Answered from the recording of the run a rerun replays: the tool did not run. */
  replayed: z.boolean().default(false),
});

/**
 * A context reference's value, recorded once for every node of the run that read it: a run's task
 * graph, read by each of its leaves, was recorded once a leaf before (a 50-leaf root's recording
 * held it 50 times, about half its bytes). Each worker process writes a value it has not written
 * for the run yet; the delegations that read it name it by `sha256`, the hash of its stored JSON.
 */
export const contextEntrySchema = z.object({ kind: z.literal('context'), node, tier, at, ref: z.string(), sha256: z.string(), value: recorded });

/** A node of a fork that answered with the outcome recorded for it in the run it was forked from, without running. */
export const reusedEntrySchema = z.object({ kind: z.literal('reused'), node, tier, at, from: z.string() });

export const recordEntrySchema = z.discriminatedUnion('kind', [delegationEntrySchema, outcomeEntrySchema, passEntrySchema, callEntrySchema, reusedEntrySchema, contextEntrySchema, toolEntrySchema]);

export type RecordEntry = z.output<typeof recordEntrySchema>;
export type DelegationEntry = z.output<typeof delegationEntrySchema>;
export type OutcomeEntry = z.output<typeof outcomeEntrySchema>;
export type PassEntry = z.output<typeof passEntrySchema>;
export type CallEntry = z.output<typeof callEntrySchema>;
export type ToolEntry = z.output<typeof toolEntrySchema>;
export type ReusedEntry = z.output<typeof reusedEntrySchema>;
/** An entry as a writer builds it: defaults may be left out. */
export type RecordEntryInput = z.input<typeof recordEntrySchema>;

/** The one stream field of a stream entry: a JSON array of record entries (a pass's end writes its delegation, pass and outcome together). */
export const RECORD_FIELD = 'r';
