import { AGGREGATION_SUMMARY } from '@tierflow/core';
import { fastSafeParse, outcomeStatusSchema, type Artifact } from '@tierflow/protocol';
import { z } from 'zod';

/** One entry of an aggregation_summary's `metadata.child_outcomes`, as the Dispatcher writes it. */
export const childOutcomeEntrySchema = z.looseObject({
  id: z.string().min(1),
  status: outcomeStatusSchema,
  specialist: z.string(),
  confidence: z.number().min(0).max(1),
  /** 1-based, within the plan the Dispatcher was given. */
  subtask_index: z.int().positive(),
  /** How many of the work artifacts after the summary are this child's, in entry order; absent from older Dispatchers. */
  artifact_count: z.int().nonnegative().optional(),
  /** What a revision's planner is told (absent from older Dispatchers): the error, the outcome's words, how often it was sent and to whom. */
  // Each read on its own: one that does not parse is left out, not the whole summary.
  error_type: z.string().nullable().optional().catch(undefined),
  summary: z.string().optional().catch(undefined),
  attempts: z.int().nonnegative().optional().catch(undefined),
  tried: z.array(z.string()).optional().catch(undefined),
});
export type ChildOutcomeEntry = z.infer<typeof childOutcomeEntrySchema>;

const summaryMetadataSchema = z.looseObject({ child_outcomes: z.array(childOutcomeEntrySchema).min(1) });

/**
 * The per-subtask outcomes a Dispatcher reported in its first artifact, the aggregation_summary;
 * null when there is none or it is unreadable (an outcome the runtime made up for a Dispatcher
 * job that failed or timed out carries no artifacts). Pure.
 */
export function childOutcomesOf(artifacts: readonly Artifact[]): ChildOutcomeEntry[] | null {
  const [first] = artifacts;
  if (first?.artifact_type !== AGGREGATION_SUMMARY) return null;
  const parsed = fastSafeParse(summaryMetadataSchema, first.metadata);
  return parsed.success ? parsed.data.child_outcomes : null;
}

/** The artifacts beside the summary: the work itself. */
export function workArtifactsOf(artifacts: readonly Artifact[]): Artifact[] {
  return artifacts.filter((artifact) => artifact.artifact_type !== AGGREGATION_SUMMARY);
}

/**
 * The work artifacts of the entries `keep` selects (by position), when every entry says how many
 * artifacts it brought and they add up; otherwise every work artifact, as before those counts. Pure.
 */
export function workArtifactsOfEntries(artifacts: readonly Artifact[], entries: readonly ChildOutcomeEntry[] | null, keep: (entry: ChildOutcomeEntry) => boolean): Artifact[] {
  const work = workArtifactsOf(artifacts);
  const counts = entries?.map((entry) => entry.artifact_count);
  if (!entries || !counts || counts.some((count) => count === undefined) || counts.reduce<number>((sum, count) => sum + count!, 0) !== work.length) return work;
  let offset = 0;
  return entries.flatMap((entry) => {
    const own = work.slice(offset, offset + entry.artifact_count!);
    offset += entry.artifact_count!;
    return keep(entry) ? own : [];
  });
}
