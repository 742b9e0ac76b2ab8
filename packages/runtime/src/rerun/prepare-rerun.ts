import { isOutcome, TierflowError, validate } from '@tierflow/protocol';
import type { ObjectiveFile } from '../model/objective.js';
import { isDigest } from '../recording/bounded.js';
import { replayAnswerSchema } from '../recording/node-calls.js';
import { toolCallHash } from '../recording/run-recorder.js';
import type { RecordEntry } from '../recording/record-entry.js';
import { applyEdits, parseEdits } from './edits.js';
import { nodePath, rerunRole, rerunSpecSchema, type ReplayMode, type RerunSpec } from './rerun-spec.js';

/** What a rerun is made from: the original run as its caller could read it (from Redis, or an exported file). */
export interface RerunSource {
  readonly rootId: string;
  /** The objective file the original was submitted with. */
  readonly objective: ObjectiveFile;
  /** Its recording, in the order it was written. */
  readonly entries: readonly RecordEntry[];
  /** Each node's outcome as its job returned it, by node id, for the jobs still retained. */
  readonly outcomes: ReadonlyMap<string, unknown>;
  /** Other nodes known of the run (its tree's), whether or not anything of them was recorded. */
  readonly nodes?: readonly string[];
}

/** What the caller asks: `tierflow rerun [--from <node>] [--replay[=strict]] [--set <path>=<value>]…`. */
export interface RerunRequest {
  readonly from?: string | null;
  readonly replay?: ReplayMode;
  readonly set?: readonly string[];
}

/** A rerun ready to write and submit. */
export interface PreparedRerun {
  /** The objective to submit: the original's, with a whole rerun's edits made to it. */
  readonly objective: ObjectiveFile;
  readonly spec: RerunSpec;
  /** Recorded answers by request hash, as JSON `{ content, model, finish_reason }`: empty when nothing is replayed. */
  readonly replay: ReadonlyMap<string, string>;
  /** A fork's reusable outcomes by node path, as JSON messages (signature included): empty for a whole rerun. */
  readonly reuse: ReadonlyMap<string, string>;
  /** What the caller should know: calls recorded without their answers, which cannot be replayed. */
  readonly notes: readonly string[];
}

/** A recorded model answer, as a rerun replays it: the one shape node-calls.ts reads back (tool calls included). */
const answerSchema = replayAnswerSchema;

function refuse(message: string, code: 'invalid_argument' | 'invalid_objective' = 'invalid_argument'): TierflowError {
  return TierflowError.permanent(message, { code });
}

/**
 * A rerun of `source` as `request` asks it (pure; docs/operations.md#rerun-fork-and-replay):
 * - a whole rerun: the objective with the edits made to it; recorded answers when it replays;
 * - a fork (`from`): the objective as it was, the edits left to `from` when it takes its
 *   delegation up; recorded answers always (its ancestors replay loosely to plan as they did);
 *   and the outcome of every node outside the subtree, by path. Each node its ancestors will
 *   send again must have one: a fork of a run whose other branches did not finish is refused.
 *
 * @throws TierflowError (code `invalid_argument`) for an edit that is not one, a `from` that is no
 *   node of the run, or a node to reuse with no outcome; (code `invalid_objective`) for edits that
 *   leave the objective invalid is the caller's check, when it submits.
 */
export function prepareRerun(source: RerunSource, request: RerunRequest): PreparedRerun {
  const set = [...(request.set ?? [])];
  const edits = parseEdits(set);
  const from = request.from ?? null;
  const spec = rerunSpecSchema.parse({ of: source.rootId, from, replay: request.replay ?? 'off', edits: set });
  const known = knownNodes(source);
  if (from !== null) {
    if (nodePath(from, source.rootId) === null) throw refuse(`--from ${from}: not a node of run ${source.rootId} (a node's id starts with its root's)`);
    if (!known.has(from)) throw refuse(`--from ${from}: run ${source.rootId} has no such node (nothing recorded or retained of it)`);
  }
  const objective = from === null ? (applyEdits(source.objective, edits) as ObjectiveFile) : source.objective;
  const notes: string[] = [];
  const replay = from !== null || spec.replay !== 'off' ? recordedAnswers(source.entries, notes) : new Map<string, string>();
  const reuse = from === null ? new Map<string, string>() : reusable(source, spec, known);
  return { objective, spec, replay, reuse, notes };
}

/** Every node known of the run: recorded, returned, or in its tree. */
function knownNodes(source: RerunSource): Set<string> {
  return new Set([source.rootId, ...(source.nodes ?? []), ...source.outcomes.keys(), ...source.entries.map((entry) => entry.node)]);
}

/**
 * The recorded answers by request hash (the first of each), from calls recorded with their answers
 * in full; and the results of tool calls that ran, by the hash of their tool and arguments
 * ({@link toolCallHash}), so that a replayed run calls no tool again.
 */
function recordedAnswers(entries: readonly RecordEntry[], notes: string[]): Map<string, string> {
  const answers = new Map<string, string>();
  let digests = 0;
  for (const entry of entries) {
    // A result cut to fit the recording (its size says so) is not the one the model saw: not replayed.
    const whole = entry.kind === 'tool' && typeof entry.result === 'string' && Buffer.byteLength(entry.result) === entry.result_bytes;
    if (entry.kind === 'tool' && whole && (entry.end === 'ok' || entry.end === 'error') && !isDigest(entry.arguments)) {
      const key = toolCallHash(entry.name, entry.arguments);
      if (!answers.has(key)) answers.set(key, JSON.stringify({ content: entry.result, isError: entry.end === 'error' }));
      continue;
    }
    if (entry.kind !== 'call' || entry.answer === null) continue;
    const answer = isDigest(entry.answer) ? null : answerSchema.safeParse(entry.answer);
    if (!answer?.success) {
      digests++;
      continue;
    }
    if (!answers.has(entry.request_hash)) answers.set(entry.request_hash, JSON.stringify(answer.data));
  }
  if (digests > 0)
    notes.push(
      `${digests} recorded model call${digests === 1 ? ' has' : 's have'} no answer in full (recorded with TIERFLOW_RECORD=metadata, or too large): ${digests === 1 ? 'it' : 'they'} cannot be replayed`,
    );
  return answers;
}

/**
 * A fork's reusable outcomes by node path: each node's outcome as its job returned it, else as
 * recorded (a recorded one may have been cut to fit, so the job's comes first). Only valid
 * outcome messages of the node itself are taken.
 */
function reusable(source: RerunSource, spec: RerunSpec, known: ReadonlySet<string>): Map<string, string> {
  // Kept as they were read, not as parsed (with defaults filled in): the signature is over what was sent.
  const outcomes = new Map<string, unknown>();
  const take = (node: string, value: unknown): void => {
    if (outcomes.has(node) || isDigest(value)) return;
    const parsed = validate(value);
    if (parsed.ok && isOutcome(parsed.value) && parsed.value.correlation_id === node) outcomes.set(node, value);
  };
  for (const [node, value] of source.outcomes) take(node, value);
  for (const entry of source.entries) if (entry.kind === 'outcome') take(entry.node, entry.message);
  const reuse = new Map<string, string>();
  const missing: string[] = [];
  for (const node of known) {
    const path = nodePath(node, source.rootId);
    if (path === null || path === '' || rerunRole(spec, path) !== 'reuse') continue;
    const outcome = outcomes.get(node);
    if (outcome !== undefined) reuse.set(path, JSON.stringify(outcome));
    // Only a node its ancestors send again must answer; those below it never run.
    else if (rerunRole(spec, path.slice(0, path.lastIndexOf('.'))) === 'ancestor') missing.push(node);
  }
  if (missing.length > 0) {
    throw refuse(
      `cannot fork run ${source.rootId} from ${spec.from}: no outcome is recorded or retained of ${missing.sort().join(', ')} (unfinished, or past retention), so ${missing.length === 1 ? 'it' : 'they'} cannot be reused`,
    );
  }
  return reuse;
}
