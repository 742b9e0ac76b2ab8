import { confidenceSchema, type OutcomePayload, outcomeStatusSchema } from '@tierflow/protocol';
import { z } from 'zod';
import { AGGREGATION_SUMMARY } from '../aggregated-outcome.js';
import { routingModeSchema, routingReasonSchema } from './routing-modes.js';

/** The aggregation_summary artifact's metadata field holding the tree's LearningRecord[]. */
export const LEARNING_METADATA_KEY = 'learning';
/** The metadata field counting records left out (over the cap, or unreadable on the way up). */
export const LEARNING_DROPPED_KEY = 'learning_dropped';
/** At most this many records per summary; more are dropped and counted in `learning_dropped`. */
export const LEARNING_RECORDS_CAP = 1000;

/** How the leaf's specialist was chosen (see routing-choice.ts). */
export const routingRecordSchema = z.object({
  mode: routingModeSchema,
  reason: routingReasonSchema,
  /** What the fixed table would pick. */
  fixed: z.string(),
  /** What learned would pick (null in plain fixed mode). */
  learned: z.string().nullable(),
  /** Learned's expected score minus fixed's (shadow and learned), else null. */
  expected_gain: z.number().nullable(),
  /** Whom the decision sent the subtask to; a leaf of another specialist is a later attempt (absent in records written before). */
  chosen: z.string().optional(),
});
export type RoutingRecord = z.infer<typeof routingRecordSchema>;

/** What the tree reports about one leaf attempt, for the Monitor to learn from. */
export const learningRecordSchema = z.object({
  task_type: z.string().min(1),
  specialist: z.string().min(1),
  model: z.string().min(1).nullable(),
  status: outcomeStatusSchema,
  /** As the specialist reported it: never the calibrated value, or calibration would learn from itself. */
  confidence: confidenceSchema,
  latency_ms: z.number().nonnegative(),
  tokens_in: z.number().nonnegative(),
  tokens_out: z.number().nonnegative(),
  cost_usd: z.number().nonnegative(),
  surprise: z.boolean(),
  routing: routingRecordSchema.nullable(),
});
export type LearningRecord = z.infer<typeof learningRecordSchema>;

/**
 * The learning records an outcome carries: its first aggregation_summary artifact's
 * `metadata.learning`, each entry parsed. Entries that do not parse, entries past
 * {@link LEARNING_RECORDS_CAP} and the summary's own `learning_dropped` count are `dropped`.
 * Never throws: what the tree reports is read, not trusted.
 */
export function learningRecordsOf(outcome: Pick<OutcomePayload, 'artifacts'>): { records: LearningRecord[]; dropped: number } {
  const summary = outcome.artifacts.find((artifact) => artifact.artifact_type === AGGREGATION_SUMMARY);
  if (summary === undefined) return { records: [], dropped: 0 };
  const metadata: Readonly<Record<string, unknown>> = summary.metadata;
  const reported = metadata[LEARNING_DROPPED_KEY];
  let dropped = typeof reported === 'number' && Number.isInteger(reported) && reported > 0 ? reported : 0;
  const entries = metadata[LEARNING_METADATA_KEY];
  if (entries === undefined) return { records: [], dropped };
  if (!Array.isArray(entries)) return { records: [], dropped: dropped + 1 };
  const records: LearningRecord[] = [];
  for (const entry of entries as unknown[]) {
    const parsed = records.length < LEARNING_RECORDS_CAP ? learningRecordSchema.safeParse(entry) : null;
    if (parsed?.success === true) records.push(parsed.data);
    else dropped += 1;
  }
  return { records, dropped };
}

/**
 * The metadata fields a summary carries for its records: at most {@link LEARNING_RECORDS_CAP} of
 * them (the first), and how many were left out, here or below (`alreadyDropped`).
 */
export function learningMetadata(records: readonly LearningRecord[], alreadyDropped = 0): { learning: LearningRecord[]; learning_dropped: number } {
  const kept = records.slice(0, LEARNING_RECORDS_CAP);
  return { learning: kept, learning_dropped: alreadyDropped + records.length - kept.length };
}
