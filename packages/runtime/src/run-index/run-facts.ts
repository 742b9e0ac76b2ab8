import { outcomeStatusSchema, type OutcomePayload, type OutcomeStatus } from '@tierflow/protocol';
import { z } from 'zod';

/*
 * What the run index keeps of a run, as hash fields (keys.ts `runFacts`), one hash per party:
 *   client   `objective` (cut), `submitted_at` (ms)
 *   monitor  `status`, `error_type`, `finished_at` (ms): the run's final outcome
 *   any tier `t:<task type>`, `s:<specialist>`, `m:<model>`, `e:<error type>`: what its nodes saw
 * A tier writes a node's fields with the node's answer, so a run's hashes gather its whole tree
 * without reading anything back. Pure.
 */

/** How much of an objective the index keeps: enough to search, bounded per run. */
export const INDEXED_OBJECTIVE_CHARS = 1_000;
/** How much of a task type, specialist, model or error type: they are names, not text. */
const INDEXED_NAME_CHARS = 200;

/** The kinds of name a tree's nodes add, and their fields' prefixes. */
export const SEEN_KINDS = { taskTypes: 't:', specialists: 's:', models: 'm:', errorTypes: 'e:' } as const;
export type SeenKind = keyof typeof SEEN_KINDS;

/** What a run's nodes saw, by kind. */
export type SeenNames = Readonly<Record<SeenKind, readonly string[]>>;

/** The client's fields: the objective and when it was submitted. */
export function clientFacts(objective: string, submittedAt: number): string[] {
  return ['objective', objective.slice(0, INDEXED_OBJECTIVE_CHARS), 'submitted_at', String(submittedAt)];
}

/** A node's fields, from its delegation's task type and its outcome: HSET's field-value pairs. */
export function nodeFacts(taskType: string, outcome: Pick<OutcomePayload, 'resources_used' | 'error_type'>): string[] {
  const used = outcome.resources_used;
  const names: [string, unknown][] = [
    [SEEN_KINDS.taskTypes, taskType],
    [SEEN_KINDS.specialists, used.specialist],
    [SEEN_KINDS.models, used.model],
    [SEEN_KINDS.errorTypes, outcome.error_type],
  ];
  return names.flatMap(([prefix, name]) => (typeof name === 'string' && name !== '' ? [`${prefix}${name.slice(0, INDEXED_NAME_CHARS)}`, '1'] : []));
}

/** The Monitor's fields for the run's final outcome. */
export function finalFacts(outcome: Pick<OutcomePayload, 'status' | 'error_type'>, finishedAt: number): string[] {
  return ['status', outcome.status, 'error_type', outcome.error_type ?? '', 'finished_at', String(finishedAt)];
}

/** A run as the index has it. */
export interface IndexedRun {
  readonly rootId: string;
  /** When it was submitted (ms): its score in the index. */
  readonly submittedAt: number;
  /** Its objective (cut), null once the client's record is gone. */
  readonly objective: string | null;
  /** Its final outcome, once the Monitor answered. */
  readonly final: { readonly status: OutcomeStatus; readonly errorType: string | null; readonly finishedAt: number } | null;
  /** What its nodes saw: empty unless they were read (a filter on them asks for them). */
  readonly seen: SeenNames;
  /** Tokens in and out of every model call of the run, and their cost (its budget hash). */
  readonly tokens: number;
  readonly costUsd: number;
}

/** A hash as HGETALL answers it: an empty object for a key that is not there. */
export type Hash = Readonly<Record<string, string>>;

const count = z.coerce.number().finite().nonnegative().catch(0);
const millis = z.coerce.number().int().nonnegative();
const finalSchema = z.object({ status: outcomeStatusSchema, error_type: z.string().catch(''), finished_at: millis });

/** What was read of one run: its parties' hashes and its budget's counters. */
export interface RunRecords {
  readonly client: Hash;
  readonly monitor: Hash;
  /** Every tier's hash, the Monitor's among them; null when not read (no filter on what the tree saw). */
  readonly tiers: readonly Hash[] | null;
  /** The budget hash's {@link BUDGET_FIELDS}, in order. */
  readonly budget: readonly (string | null)[];
}

/** A run from what its parties wrote. Read without trusting it: a field that does not parse counts as absent. */
export function indexedRun(rootId: string, submittedAt: number, { client, monitor, tiers, budget }: RunRecords): IndexedRun {
  const objective = typeof client.objective === 'string' ? client.objective : null;
  const final = finalSchema.safeParse(monitor);
  const seen = Object.fromEntries(
    Object.entries(SEEN_KINDS).map(([kind, prefix]) => [
      kind,
      [...new Set((tiers ?? []).flatMap((hash) => Object.keys(hash).flatMap((field) => (field.startsWith(prefix) ? [field.slice(prefix.length)] : []))))].sort(),
    ]),
  ) as Record<SeenKind, string[]>;
  const [tokensIn = 0, tokensOut = 0, micro = 0] = [0, 1, 2].map((index) => count.parse(budget[index] ?? 0));
  return {
    rootId,
    submittedAt,
    objective,
    final: final.success ? { status: final.data.status, errorType: final.data.error_type === '' ? null : final.data.error_type, finishedAt: final.data.finished_at } : null,
    seen,
    tokens: tokensIn + tokensOut,
    costUsd: micro / 1_000_000,
  };
}

/** The budget hash's fields {@link indexedRun} reads, in its order. */
export const BUDGET_FIELDS = ['tokens_in', 'tokens_out', 'cost_micro_usd'] as const;
